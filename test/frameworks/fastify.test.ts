import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/testing/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization, signInAt } from '../helpers/emulator-user.js';
import { buildApp } from './fastify/kudos-auth.js';

const CLIENT = {
  clientID: 'fastify-app',
  clientSecret: 'fastify-secret',
  name: 'Fastify App',
  redirectURIs: ['http://127.0.0.1/auth/kudos/callback'],
};

describe('Fastify with @fastify/passport and @fastify/session', () => {
  let kudos: KudosEmulator;
  let app: FastifyInstance;
  let url: string;

  async function start(clientSecret = CLIENT.clientSecret): Promise<void> {
    kudos = await startKudosEmulator({ clients: [CLIENT] });
    app = await buildApp(
      {
        clientID: CLIENT.clientID,
        clientSecret,
        callbackURL: '/auth/kudos/callback',
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
      },
      'a-fastify-session-secret-of-32-chars-at-least',
    );
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  }

  afterEach(async () => {
    await app?.close();
    await kudos?.close();
  });

  it('signs in, with state on and the session carrying the user', async () => {
    await start();
    const browser = new CookieClient();
    const begin = await browser.get(`${url}/auth/kudos`);
    expect(begin.status).toBe(302);
    const target = locationOf(begin);
    expect(target.searchParams.get('redirect_uri')).toBe(`${url}/auth/kudos/callback`);
    expect(target.searchParams.get('state')).toBeTruthy();
    const back = await passAuthorization(browser, target);
    const done = await browser.get(locationOf(back));
    expect(locationOf(done).pathname).toBe('/me');
    expect(await (await browser.get(`${url}/me`)).json()).toEqual({
      id: 'alice',
      displayName: 'Alice Liddell',
    });
  });

  it('lands a declined consent on the failure route with the message', async () => {
    await start();
    const { browser, callback: done } = await signInAt(url, { decision: 'decline' });
    expect(locationOf(done).pathname).toBe('/auth/failure');
    expect(await (await browser.get(`${url}/auth/failure`)).json()).toEqual({
      failed: true,
      messages: ['You declined to sign in with Kudos.'],
    });
    expect(kudos.counters.tokenRequests).toBe(0);
  });

  it('fails a forged state with 403 before any token request', async () => {
    await start();
    const browser = new CookieClient();
    await browser.get(`${url}/auth/kudos`);
    const res = await browser.get(`${url}/auth/kudos/callback?code=x&state=forged`);
    expect(locationOf(res).pathname).toBe('/auth/failure');
    expect(kudos.counters.tokenRequests).toBe(0);
  });

  it('answers a token-endpoint error with its status and the service’s code', async () => {
    await start('wrong-secret');
    const { callback: res } = await signInAt(url);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      code: 'INVALID_CLIENT_CRED',
      message: 'Kudos token endpoint answered HTTP 400 INVALID_CLIENT_CRED',
    });
  });
});
