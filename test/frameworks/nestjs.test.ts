import type { INestApplication } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/testing/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization, signInAt } from '../helpers/emulator-user.js';
import { bootstrap } from './nestjs/main.js';

const CLIENT = {
  clientID: 'nest-app',
  clientSecret: 'nest-secret',
  name: 'Nest App',
  redirectURIs: ['http://127.0.0.1/auth/kudos/callback'],
};

describe('NestJS (Express platform) with PassportStrategy(KudosStrategy, "kudos")', () => {
  let kudos: KudosEmulator;
  let app: INestApplication;
  let url: string;

  async function start(clientSecret = CLIENT.clientSecret): Promise<void> {
    kudos = await startKudosEmulator({ clients: [CLIENT] });
    app = await bootstrap(
      {
        clientID: CLIENT.clientID,
        clientSecret,
        callbackURL: '/auth/kudos/callback',
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
      },
      'nest-session-secret',
      0,
    );
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  }

  afterEach(async () => {
    await app?.close();
    await kudos?.close();
  });

  it('signs in through the guard-protected routes and keeps the user in the session', async () => {
    await start();
    const browser = new CookieClient();
    const begin = await browser.get(`${url}/auth/kudos`);
    expect(begin.status).toBe(302);
    expect(locationOf(begin).searchParams.get('state')).toBeTruthy();
    const back = await passAuthorization(browser, locationOf(begin));
    const done = await browser.get(locationOf(back));
    expect(locationOf(done).pathname).toBe('/me');
    expect(await (await browser.get(`${url}/me`)).json()).toEqual({
      id: 'alice',
      displayName: 'Alice Liddell',
    });
  });

  it('lands a declined consent on the failure route', async () => {
    await start();
    const { browser, callback: done } = await signInAt(url, { decision: 'decline' });
    expect(locationOf(done).pathname).toBe('/auth/failure');
    expect(await (await browser.get(locationOf(done, url))).json()).toEqual({
      failed: true,
      message: 'You declined to sign in with Kudos.',
    });
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
