import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import type { KudosStrategyOptions } from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization, signInAt } from '../helpers/emulator-user.js';

/** A framework's app under test: where it listens, and how to stop it. */
export interface FrameworkApp {
  url: string;
  close(): Promise<unknown>;
}

/**
 * The sign-in every framework integration must get right, against a real emulator: a login with
 * state and a session, a declined consent (the app's failure route answers `declined`), a forged
 * state, and a token-endpoint error. `start` builds and starts the app with the strategy's options.
 */
export function frameworkLoginSuite(
  name: string,
  start: (options: KudosStrategyOptions) => Promise<FrameworkApp>,
  declined: unknown,
): void {
  const client = {
    clientID: 'framework-app',
    clientSecret: 'framework-secret',
    name: 'Framework App',
    redirectURIs: ['http://127.0.0.1/auth/kudos/callback'],
  };

  describe(name, () => {
    let kudos: KudosEmulator;
    let app: FrameworkApp | undefined;

    async function startApp(clientSecret = client.clientSecret): Promise<string> {
      kudos = await startKudosEmulator({ clients: [client] });
      app = await start({
        clientID: client.clientID,
        clientSecret,
        callbackURL: '/auth/kudos/callback',
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
      });
      return app.url;
    }

    afterEach(async () => {
      await app?.close();
      await kudos?.close();
    });

    it('signs in, with state on and the session carrying the user', async () => {
      const url = await startApp();
      const browser = new CookieClient();
      const begin = await browser.get(`${url}/auth/kudos`);
      expect(begin.status).toBe(302);
      const target = locationOf(begin);
      expect(target.searchParams.get('redirect_uri')).toBe(`${url}/auth/kudos/callback`);
      expect(target.searchParams.get('state')).toBeTruthy();
      const done = await browser.get(locationOf(await passAuthorization(browser, target)));
      expect(locationOf(done).pathname).toBe('/me');
      expect(await (await browser.get(`${url}/me`)).json()).toEqual({
        id: 'alice',
        displayName: 'Alice Liddell',
      });
    });

    it('lands a declined consent on the failure route with the message', async () => {
      const url = await startApp();
      const { browser, callback: done } = await signInAt(url, { decision: 'decline' });
      expect(locationOf(done).pathname).toBe('/auth/failure');
      expect(await (await browser.get(locationOf(done, url))).json()).toEqual(declined);
      expect(kudos.counters.tokenRequests).toBe(0);
    });

    it('fails a forged state before any token request', async () => {
      const url = await startApp();
      const browser = new CookieClient();
      await browser.get(`${url}/auth/kudos`);
      const res = await browser.get(`${url}/auth/kudos/callback?code=x&state=forged`);
      expect(locationOf(res).pathname).toBe('/auth/failure');
      expect(kudos.counters.tokenRequests).toBe(0);
    });

    it('answers a token-endpoint error with its status and the service’s code', async () => {
      const { callback: res } = await signInAt(await startApp('wrong-secret'));
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({
        code: 'INVALID_CLIENT_CRED',
        message: 'Kudos token endpoint answered HTTP 400 INVALID_CLIENT_CRED',
      });
    });
  });
}
