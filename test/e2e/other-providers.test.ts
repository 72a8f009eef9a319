import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { compile, runSnippet } from '../helpers/snippets.js';

// docs/reference.md's "Adding Kudos to an app with other providers" (docs/snippets/other-providers.ts),
// compiled and run as it is against the emulator: a (provider, subject) credential, the same user at
// every sign-in, account linking with passport.authorize, failureMessage, and the callback's host.
describe('an app with other providers adds Kudos (docs/snippets/other-providers.ts)', () => {
  let kudos: KudosEmulator;
  let file: string;
  let app: Awaited<ReturnType<typeof runSnippet>> | undefined;

  beforeAll(async () => {
    file = compile('other-providers');
    // The app's client, registered as an operator would: its two callbacks, on localhost only (a
    // loopback host matches on any port).
    kudos = await startKudosEmulator({
      autoLogin: 'alice',
      clients: [
        {
          clientID: 'kudos-demo-client',
          clientSecret: 'kudos-demo-secret',
          redirectURIs: [
            'http://localhost:3000/auth/kudos/callback',
            'http://localhost:3000/connect/kudos/callback',
          ],
        },
      ],
    });
  }, 60_000);
  afterAll(() => kudos.close());
  afterEach(() => {
    app?.child.kill('SIGTERM');
    app = undefined;
  });

  /** The snippet on port 0, its own URL as `host` names it. */
  async function start(host = 'localhost'): Promise<string> {
    const url = `http://${host}:{PORT}`;
    app = await runSnippet(file, {
      APP_URL: url,
      SHOP_URL: url,
      KUDOS_AUTH_URL: kudos.authURL,
      KUDOS_BASE_URL: kudos.baseURL,
    });
    return app.url;
  }

  /** Follows redirects with the client's cookies until an answer that is not one; that answer and its URL. */
  async function follow(client: CookieClient, start: string): Promise<{ res: Response; at: URL }> {
    let at = new URL(start);
    let res = await client.get(at);
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      at = locationOf(res, at.toString());
      res = await client.get(at);
    }
    return { res, at };
  }

  const home = async (client: CookieClient, url: string) =>
    (await (await client.get(`${url}/`)).json()) as {
      user: { id: string; name: string } | null;
      linked: string[];
    };

  it('a Kudos sign-in makes a user with the credential (kudos, the Kudos user ID); the next finds the same user', async () => {
    const url = await start();
    const first = new CookieClient();
    await follow(first, `${url}/auth/kudos`);
    expect(await home(first, url)).toEqual({
      user: { id: '2', name: 'Alice Liddell' },
      linked: ['kudos:alice'],
    });
    const again = new CookieClient(); // another browser, later
    await follow(again, `${url}/auth/kudos`);
    expect((await home(again, url)).user?.id).toBe('2');
  });

  it('passport.authorize links Kudos to the signed-in account; a Kudos sign-in then signs that account in', async () => {
    const url = await start();
    const ada = new CookieClient();
    await follow(ada, `${url}/test/sign-in-as-ada`);
    await follow(ada, `${url}/connect/kudos`);
    expect(await home(ada, url)).toEqual({
      user: { id: '1', name: 'Ada (signed up with another provider)' },
      linked: ['kudos:alice'],
    });
    const later = new CookieClient();
    await follow(later, `${url}/auth/kudos`);
    expect((await home(later, url)).user?.id).toBe('1');
  });

  it('failureMessage: a declined sign-in lands on /login with the reason', async () => {
    const url = await start();
    kudos.failNextAuthorization('access_denied');
    const client = new CookieClient();
    const { res, at } = await follow(client, `${url}/auth/kudos`);
    expect(at.pathname).toBe('/login');
    expect(await res.text()).toMatch(/^Sign in\. \S.*/);
    expect((await home(client, url)).user).toBeNull();
  });

  it('the callback URL names the host Kudos has registered: 127.0.0.1 where localhost is registered is refused', async () => {
    const url = await start('127.0.0.1');
    const client = new CookieClient();
    const { res, at } = await follow(client, `${url}/auth/kudos`);
    expect(at.origin).toBe(new URL(kudos.authURL).origin); // stopped at Kudos, never back at the app
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('redirect_uri');
  });
});
