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

  /**
   * POST an urlencoded form. The emulator's login and register forms carry a token of their page
   * (`form_token`, with its cookie): as a browser would, the page is loaded first when the form has
   * none.
   */
  async postForm(url: string | URL, form: Record<string, string>): Promise<Response> {
    const target = new URL(url);
    if (/^\/in\/(login|register)$/.test(target.pathname) && form.form_token === undefined) {
      const page = await (await this.get(target)).text();
      const token = /name="form_token" value="([^"]*)"/.exec(page)?.[1];
      if (token !== undefined) form = { ...form, form_token: token };
    }
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
