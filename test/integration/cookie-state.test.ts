import session from 'express-session';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { KudosCookieStateStore } from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { EXPRESS_FLAVORS, startApp, type TestApp } from '../helpers/express-app.js';

// A sign-in start that stores nothing (KudosCookieStateStore) with real Express 4 and 5,
// express-session, passport and the emulator: anonymous starts leave no session, a user signs in;
// sign-ins in two tabs both complete, a stray callback spoils none, a replayed state signs nobody in,
// a foreign callback fails as it does with the session store; behind a TLS proxy the cookie is Secure
// and __Host- with the strategy's proxy: true alone.

const CLIENT = {
  clientID: 'app',
  clientSecret: 'app-secret',
  name: 'App',
  redirectURIs: ['http://127.0.0.1/callback', 'https://shop.example/callback'],
};
const SECRET = 'cookie-state-integration-secret-0123456789';

/** How many sessions a MemoryStore holds. */
function sessionsIn(store: session.MemoryStore): Promise<number> {
  return new Promise((resolve, reject) =>
    store.length((err, count) => (err ? reject(err) : resolve(count ?? 0))),
  );
}

describe.each(EXPRESS_FLAVORS)('KudosCookieStateStore under %s', (flavor) => {
  let kudos: KudosEmulator | undefined;
  let app: TestApp | undefined;
  let sessions: session.MemoryStore;
  afterEach(async () => {
    await app?.close();
    await kudos?.close();
    app = kudos = undefined;
  });

  async function setUp(strategy: object = {}): Promise<{ kudos: KudosEmulator; app: TestApp }> {
    kudos = await startKudosEmulator({ clients: [CLIENT] });
    sessions = new session.MemoryStore();
    app = await startApp(flavor, {
      sessionStore: sessions,
      strategy: {
        clientID: 'app',
        clientSecret: 'app-secret',
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
        store: new KudosCookieStateStore({ secret: SECRET }),
        ...strategy,
      },
    });
    return { kudos, app };
  }

  it('leaves no session for 2,000 anonymous starts, then signs a user in whose start came before them', async () => {
    const { app } = await setUp();
    const alice = new CookieClient();
    const aliceStart = await alice.get(`${app.url}/login`);
    expect(aliceStart.headers.get('set-cookie')).toMatch(
      /^kudos_oauth_state\.[A-Za-z0-9_-]{16}=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          const res = await fetch(`${app.url}/login`, { redirect: 'manual' });
          expect(res.status).toBe(302);
          expect(res.headers.get('set-cookie')).not.toContain('connect.sid');
          await res.arrayBuffer();
        }),
      );
    }
    expect(await sessionsIn(sessions)).toBe(0);
    const back = await passAuthorization(alice, locationOf(aliceStart));
    const done = await alice.get(locationOf(back));
    expect(locationOf(done).pathname).toBe('/me');
    expect(done.headers.get('set-cookie')).toMatch(/kudos_oauth_state\.[A-Za-z0-9_-]{16}=; Max-Age=0/);
    expect(await (await alice.get(`${app.url}/me`)).json()).toEqual({
      id: 'alice',
      displayName: 'Alice Liddell',
    });
    expect(await sessionsIn(sessions)).toBe(1); // the signed-in user's, made at login
  });

  it('two sign-ins started in two tabs both complete, in either order', async () => {
    const { app } = await setUp();
    for (const order of [
      [0, 1],
      [1, 0],
    ]) {
      const browser = new CookieClient();
      const starts = [await browser.get(`${app.url}/login`), await browser.get(`${app.url}/login`)];
      // The same browser, one tab after the other: the second start is already authorized.
      const backs = [];
      for (const start of starts) backs.push(locationOf(await passAuthorization(browser, locationOf(start))));
      for (const i of order) {
        const done = await browser.get(backs[i] as URL);
        expect(locationOf(done).pathname).toBe('/me');
      }
      expect((await browser.get(`${app.url}/me`)).status).toBe(200);
    }
  });

  it('a stray callback with a made-up state spoils no sign-in under way', async () => {
    const { app } = await setUp();
    const browser = new CookieClient();
    const start = await browser.get(`${app.url}/login`);
    const back = locationOf(await passAuthorization(browser, locationOf(start)));
    const stray = await browser.get(`${app.url}/callback-raw?code=planted&state=${'S'.repeat(32)}`);
    expect(stray.status).toBe(403);
    expect(stray.headers.get('set-cookie') ?? '').not.toContain('kudos_oauth_state');
    expect(locationOf(await browser.get(back)).pathname).toBe('/me');
  });

  it('a replayed state signs nobody in: the same cookie and state again, with a new code, 3 times', async () => {
    const { app } = await setUp();
    const attacker = new CookieClient();
    const start = await attacker.get(`${app.url}/login`);
    const stateCookie = (start.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const authorize = locationOf(start);
    expect(
      locationOf(await attacker.get(locationOf(await passAuthorization(attacker, authorize)))).pathname,
    ).toBe('/me');
    for (const user of ['bobby', 'alice', 'bobby']) {
      const other = new CookieClient();
      const code = locationOf(
        await passAuthorization(other, authorize, {
          username: user,
          password: user === 'bobby' ? 'builder' : 'wonderland',
        }),
      );
      expect(code.searchParams.get('state')).toBe(authorize.searchParams.get('state'));
      const replay = await fetch(
        code.toString().replace('/callback', '/callback-raw').replace('http://127.0.0.1/', `${app.url}/`),
        {
          headers: { cookie: stateCookie },
          redirect: 'manual',
        },
      );
      expect(replay.status).toBe(403);
      expect(replay.headers.get('set-cookie') ?? '').not.toContain('connect.sid');
    }
  });

  it('fails a foreign callback with 403, as the session store does (login CSRF)', async () => {
    const { app } = await setUp();
    const attacker = new CookieClient();
    const his = locationOf(
      await passAuthorization(attacker, locationOf(await attacker.get(`${app.url}/login`)), {
        username: 'bobby',
        password: 'builder',
      }),
    );
    const victim = new CookieClient();
    await victim.get(`${app.url}/login`); // the victim's own start, in its own cookie
    const forced = await victim.get(his.toString().replace('/callback', '/callback-raw'));
    expect(forced.status).toBe(403);
    expect((await victim.get(`${app.url}/me`)).status).not.toBe(200);
  });

  it('behind an X-Forwarded-Proto: https proxy, with the strategy’s proxy: true alone: Secure and __Host-', async () => {
    const { app } = await setUp({ proxy: true });
    const res = await fetch(`${app.url}/login`, {
      redirect: 'manual',
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example' },
    });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location') ?? '').searchParams.get('redirect_uri')).toBe(
      'https://shop.example/callback',
    );
    expect(res.headers.get('set-cookie')).toMatch(
      /^__Host-kudos_oauth_state\.[A-Za-z0-9_-]{16}=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
    );
    // Plain HTTP on loopback (development): no prefix, no Secure, and the sign-in works as above.
    const local = await fetch(`${app.url}/login`, { redirect: 'manual' });
    expect(local.headers.get('set-cookie')).toMatch(
      /^kudos_oauth_state\.[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/,
    );
  });
});
