import http from 'node:http';
import type { KudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kudosWebhook, MemoryDedupeStore } from '../../packages/kudos-payments/src/index.js';
import { createKudosClient, type KudosTokenSet } from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { startApp, type TestApp } from '../helpers/express-app.js';
import { type Listening, listenLocal } from '../helpers/listen.js';
import { sampleNotification } from '../helpers/notifications.js';
import { startPaymentsEmulator, strategyOf } from '../helpers/observed-shop.js';
import { TraceRecorder } from '../helpers/trace-recorder.js';
import { deliver } from '../helpers/webhook-app.js';

// No channel message carries a secret: every channel subscribed to while each secret passes through
// the package (a client secret, authorization codes, states, access and refresh tokens, a webhook
// secret in the query and in the path, a wrong one, and a token endpoint that echoes its form back).

const CLIENT = {
  clientID: 'app',
  clientSecret: 'client-secret-never-traced-7f3a',
  name: 'App',
  redirectURIs: ['http://127.0.0.1/callback'],
};
const WEBHOOK_SECRET = 'webhook-secret-never-traced-91c2e';
const WRONG_SECRET = 'wrong-secret-never-traced-0d4b7a';

describe('no tracing channel message carries a secret', () => {
  let recorder: TraceRecorder;
  let kudos: KudosEmulator;
  let app: TestApp;
  let shop: Listening;
  let echo: Listening;
  /** Every secret that went through the package in this file. */
  const secrets = new Set<string>([CLIENT.clientSecret, WEBHOOK_SECRET, WRONG_SECRET]);

  beforeAll(async () => {
    recorder = new TraceRecorder();
    kudos = await startPaymentsEmulator({ clients: [CLIENT] });
    app = await startApp('express5', {
      strategy: {
        clientID: CLIENT.clientID,
        clientSecret: CLIENT.clientSecret,
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
        pkce: true,
      },
    });
    // A token endpoint that answers 400 with the whole form it was sent in its description.
    echo = await listenLocal(
      http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk) => {
          body += chunk;
        });
        req.on('end', () => {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'invalid_grant', error_description: `you sent ${body}` }));
        });
      }),
    );
  });
  afterAll(async () => {
    recorder.close();
    await app?.close();
    await shop?.close();
    await echo?.close();
    await kudos?.close();
  });

  it('signs in twice (one with the token endpoint echoing its form), refreshes, calls the API, revokes', async () => {
    for (let round = 0; round < 2; round++) {
      const browser = new CookieClient();
      const back = locationOf(
        await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`))),
      );
      for (const name of ['code', 'state']) secrets.add(back.searchParams.get(name) as string);
      expect(locationOf(await browser.get(back)).pathname).toBe('/me');
    }
    for (const call of app.calls) for (const token of call.args.slice(0, 2)) secrets.add(token as string);

    const strategy = strategyOf(kudos, CLIENT);
    const refreshed = await strategy.refresh(app.calls.at(-1)?.args[1] as string);
    secrets.add(refreshed.accessToken);
    if (refreshed.refreshToken) secrets.add(refreshed.refreshToken);
    const stored = new Map<string, KudosTokenSet>([['alice', { ...refreshed, expiresAt: 0 }]]);
    const client = createKudosClient({
      strategy,
      tokens: { get: async (id) => stored.get(id), set: async (id, s) => void stored.set(id, s) },
    });
    await client.json('alice', '/users/profile');
    const latest = stored.get('alice') as KudosTokenSet;
    secrets.add(latest.accessToken);
    await strategy.revoke(latest.accessToken, 'access_token');

    // The token endpoint echoes the refresh token and the client secret back.
    const echoing = strategyOf(kudos, CLIENT, { tokenURL: `${echo.url}/token` });
    await expect(echoing.refresh(latest.refreshToken as string)).rejects.toMatchObject({
      code: 'reauth_required',
    });
    expect(recorder.of('refresh')).toHaveLength(3); // its own, the client's, the echoing one
  });

  it('receives payments with the secret in the query and the path, a wrong one, a redrive', async () => {
    let failing = true;
    const hook = kudosWebhook({
      secret: WEBHOOK_SECRET,
      store: new MemoryDedupeStore(),
      onNotification: () => {
        if (failing) throw new Error('the shop database is down');
      },
    });
    shop = await listenLocal(http.createServer((req, res) => hook(req, res)));
    kudos.setWebhook('shop-agent', `${shop.url}/webhooks/kudos/${WEBHOOK_SECRET}`);
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    failing = false;
    kudos.setWebhook('shop-agent', `${shop.url}/webhooks/kudos?token=${WEBHOOK_SECRET}`);
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    await deliver(`${shop.url}/webhooks/kudos?token=${WRONG_SECRET}`, sampleNotification());
    await deliver(`${shop.url}/webhooks/kudos/${WRONG_SECRET}`, sampleNotification());
    expect(await hook.redrive()).toMatchObject({ processed: 1 });
    await recorder.until('notification', 5);
    expect(recorder.of('notification').map((m) => m.outcome)).toEqual([
      'kept',
      'processed',
      'refused',
      'refused',
      'processed',
    ]);
  });

  it('none of those secrets is in any event of any channel, in any encoding', () => {
    expect(recorder.seen.length).toBeGreaterThan(50);
    for (const operation of ['authorize', 'callback', 'token', 'refresh', 'revoke', 'api'] as const) {
      expect(recorder.of(operation).length, operation).toBeGreaterThan(0);
    }
    const text = recorder.seen.join('\n');
    expect(secrets.size).toBeGreaterThanOrEqual(10);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThanOrEqual(8);
      for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]) {
        expect(text.includes(form), `a form of a secret (${secret.slice(0, 4)}...) was traced`).toBe(false);
      }
    }
  });
});
