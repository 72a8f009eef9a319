import session from 'express-session';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { KudosCookieStateStore } from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { EXPRESS_FLAVORS, startApp, type TestApp } from '../helpers/express-app.js';

// A sign-in start that stores nothing (KudosCookieStateStore) with real Express 4 and 5,
// express-session, passport and the emulator: anonymous starts leave no session, a user signs in, and a
// replayed or foreign callback fails as it does with the session store.

const CLIENT = {
  clientID: 'app',
  clientSecret: 'app-secret',
  name: 'App',
  redirectURIs: ['http://127.0.0.1/callback'],
};
const SECRET = 'cookie-state-integration-secret';

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

  async function setUp(): Promise<{ kudos: KudosEmulator; app: TestApp }> {
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
      },
    });
    return { kudos, app };
  }

  it('leaves no session for 2,000 anonymous starts, then signs a user in whose start came before them', async () => {
    const { app } = await setUp();
    const alice = new CookieClient();
    const aliceStart = await alice.get(`${app.url}/login`);
    expect(aliceStart.headers.get('set-cookie')).toMatch(
      /^kudos_oauth_state=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/,
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
    expect(done.headers.get('set-cookie')).toContain('kudos_oauth_state=; Max-Age=0');
    expect(await (await alice.get(`${app.url}/me`)).json()).toEqual({
      id: 'alice',
      displayName: 'Alice Liddell',
    });
    expect(await sessionsIn(sessions)).toBe(1); // the signed-in user's, made at login
  });

  it('fails a replayed callback and a foreign one with 403, as the session store does', async () => {
    const { app } = await setUp();
    const browser = new CookieClient();
    const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)));
    const callback = locationOf(back);
    expect(locationOf(await browser.get(callback)).pathname).toBe('/me');
    // The same URL again: the cookie is gone (and the code spent).
    const replay = await browser.get(callback.toString().replace('/callback', '/callback-raw'));
    expect(replay.status).toBe(403);
    // A callback an attacker got for himself, opened in the victim's browser (login CSRF): refused.
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
});
