/**
 * A cookie-carrying HTTP client that does not follow redirects, for driving login flows. Cookies
 * are kept per host name, not per port, as browsers do.
 */
export class CookieClient {
  private readonly cookies = new Map<string, string>();

  /** Sends a request with the stored cookies and stores the ones the answer sets. */
  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const target = new URL(url);
    const jar = this.cookieHeader(target.hostname);
    if (jar) headers.set('cookie', jar);
    const res = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(line);
      const key = `${target.hostname} ${pair.slice(0, eq).trim()}`;
      if (expired) this.cookies.delete(key);
      else this.cookies.set(key, pair.slice(eq + 1).trim());
    }
    return res;
  }

  /** GET a URL. */
  get(url: string | URL): Promise<Response> {
    return this.request(url);
  }

  /** POST an urlencoded form. */
  postForm(url: string | URL, form: Record<string, string>): Promise<Response> {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  private cookieHeader(host: string): string {
    return [...this.cookies]
      .filter(([key]) => key.startsWith(`${host} `))
      .map(([key, value]) => `${key.slice(host.length + 1)}=${value}`)
      .join('; ');
  }
}

/** The redirect target of a 3xx answer, as a URL. */
export function locationOf(res: Response, base?: string): URL {
  const location = res.headers.get('location');
  if (!location) throw new Error(`expected a redirect, got HTTP ${res.status}`);
  return new URL(location, base ?? 'http://localhost');
}
