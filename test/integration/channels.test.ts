import { readFileSync } from 'node:fs';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cosmosConfirmer,
  type KudosDedupeStore,
  kudosWebhook,
  MemoryDedupeStore,
} from '../../packages/kudos-payments/src/index.js';
import { createKudosClient, KUDOS_TRACE_CHANNELS, type KudosTokenSet } from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { exchangeCode, passAuthorization } from '../helpers/emulator-user.js';
import { startApp, type TestApp } from '../helpers/express-app.js';
import type { Listening } from '../helpers/listen.js';
import { listenShop, startPaymentsEmulator, strategyOf } from '../helpers/observed-shop.js';
import { startTokenServer } from '../helpers/token-server.js';
import { TraceRecorder } from '../helpers/trace-recorder.js';

// Every documented channel, subscribed to by name, sees each operation with the documented shape,
// on the success path and on each failure path; with the emulator, real apps and the real sender.

const CLIENT = {
  clientID: 'app',
  clientSecret: 'app-secret-for-channels',
  name: 'App',
  redirectURIs: ['http://127.0.0.1/callback'],
};
const WEBHOOK_SECRET = 'channels-webhook-secret-0123456789';
/** The order of a traced operation's events (a promise: its end comes before it settles). */
const RESOLVED = ['start', 'end', 'asyncStart', 'asyncEnd'];
const REJECTED = ['start', 'end', 'error', 'asyncStart', 'asyncEnd'];

/** The fields docs/observability.md's channel table gives each channel's message. */
const DOCUMENTED = new Map(
  [
    ...(readFileSync('docs/observability.md', 'utf8')
      .split('<!-- channels -->')[1]
      ?.split('<!-- /channels -->')[0]
      ?.matchAll(/^\| `(passport-kudos:\w+)` \| [^|]+ \| (.+) \|$/gm) ?? []),
  ].map((m) => [
    m[1] as string,
    // The field names: what is in backquotes outside the parentheses (which list the values).
    new Set([...(m[2] as string).replace(/\([^)]*\)/g, '').matchAll(/`(\w+)`/g)].map((f) => f[1] as string)),
  ]),
);

let recorder: TraceRecorder;
beforeEach(() => {
  recorder = new TraceRecorder();
});
afterEach(() => {
  recorder.close();
  // Every message seen has only the fields its channel's row documents (besides Node's own).
  for (const { channel, message } of recorder.ended) {
    const fields = DOCUMENTED.get(channel);
    expect(fields, `docs/observability.md has a row for ${channel}`).toBeDefined();
    for (const key of Object.keys(message).filter((k) => k !== 'result' && k !== 'error')) {
      expect(fields?.has(key), `${channel} documents "${key}"`).toBe(true);
    }
  }
});

it('docs/observability.md has a row for every channel, and no other', () => {
  expect([...DOCUMENTED.keys()].sort()).toEqual(Object.values(KUDOS_TRACE_CHANNELS).sort());
});

describe('sign-in channels: authorize, callback, token (Express 5, the emulator)', () => {
  let kudos: KudosEmulator;
  let app: TestApp;
  afterEach(async () => {
    await app?.close();
    await kudos?.close();
  });

  async function setUp(clientSecret = CLIENT.clientSecret, extra: Record<string, unknown> = {}) {
    kudos = await startKudosEmulator({ clients: [CLIENT] });
    app = await startApp('express5', {
      strategy: {
        clientID: 'app',
        clientSecret,
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
        scope: ['profile', 'email'],
        ...extra,
      },
    });
  }

  it('a sign-in: authorize (redirect), then the callback (success) around one token request (success, 200)', async () => {
    await setUp();
    const browser = new CookieClient();
    const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)));
    expect(locationOf(await browser.get(locationOf(back))).pathname).toBe('/me');
    await recorder.until('callback');
    expect(recorder.of('authorize')).toEqual([
      {
        operation: 'authorize',
        authorizationURL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/in\/oauth\/?$/),
        scope: 'profile email',
        outcome: 'redirect',
      },
    ]);
    expect(recorder.of('callback')).toEqual([{ operation: 'callback', outcome: 'success' }]);
    expect(recorder.of('token')).toEqual([
      { operation: 'token', method: 'POST', url: kudos.tokenURL, statusCode: 200, outcome: 'success' },
    ]);
    // The token request ends before the callback does, and each operation publishes every event.
    const order = recorder.ended.map((e) => e.channel);
    expect(order.indexOf('passport-kudos:token')).toBeLessThan(order.indexOf('passport-kudos:callback'));
    for (const e of recorder.ended) expect(e.events).toEqual(RESOLVED);
  });

  it('denied: the callback fails as denied, with no token request', async () => {
    await setUp();
    const browser = new CookieClient();
    const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)), {
      decision: 'decline',
    });
    expect(locationOf(await browser.get(locationOf(back))).pathname).toBe('/failed');
    await recorder.until('callback');
    expect(recorder.of('callback')).toEqual([{ operation: 'callback', outcome: 'denied' }]);
    expect(recorder.of('token')).toEqual([]);
  });

  it('state mismatch: a callback whose state is not the session’s fails as state_mismatch', async () => {
    await setUp();
    const browser = new CookieClient();
    const back = locationOf(
      await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`))),
    );
    back.searchParams.set('state', 'not-the-state-of-this-session');
    expect(locationOf(await browser.get(back)).pathname).toBe('/failed');
    await recorder.until('callback');
    expect(recorder.of('callback')).toEqual([{ operation: 'callback', outcome: 'state_mismatch' }]);
    expect(recorder.of('token')).toEqual([]);
  });

  it('token endpoint 400: the token request errors with the service’s code, the callback is a token_error', async () => {
    await setUp('a-wrong-client-secret');
    const browser = new CookieClient();
    const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)));
    const answer = await browser.get(locationOf(back));
    expect(answer.status).toBe(502);
    await recorder.until('callback');
    expect(recorder.of('token')).toEqual([
      {
        operation: 'token',
        method: 'POST',
        url: kudos.tokenURL,
        statusCode: 400,
        outcome: 'error',
        code: 'INVALID_CLIENT_CRED',
        error: expect.objectContaining({ name: 'KudosTokenError', code: 'INVALID_CLIENT_CRED' }),
      },
    ]);
    expect(recorder.of('callback')).toEqual([
      {
        operation: 'callback',
        outcome: 'token_error',
        code: 'INVALID_CLIENT_CRED',
        error: expect.objectContaining({ code: 'INVALID_CLIENT_CRED' }),
      },
    ]);
    for (const e of recorder.ended.filter((e) => e.channel !== 'passport-kudos:authorize')) {
      expect(e.events).toEqual(REJECTED);
    }
  });

  it('token endpoint timeout: the token request errors with timeout and no status', async () => {
    const stalled = await startTokenServer({ kind: 'stall' });
    try {
      kudos = await startKudosEmulator({ clients: [CLIENT] });
      app = await startApp('express5', {
        strategy: {
          clientID: 'app',
          clientSecret: CLIENT.clientSecret,
          authURL: kudos.authURL,
          tokenURL: `${stalled.baseURL}/token`,
          timeoutMs: 200,
        },
      });
      const browser = new CookieClient();
      const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)));
      expect((await browser.get(locationOf(back))).status).toBe(504);
      await recorder.until('callback');
      expect(recorder.of('token')).toEqual([
        expect.objectContaining({ operation: 'token', outcome: 'error', code: 'timeout' }),
      ]);
      expect(recorder.of('token')[0]).not.toHaveProperty('statusCode');
      expect(recorder.of('callback')).toEqual([
        expect.objectContaining({ outcome: 'token_error', code: 'timeout' }),
      ]);
    } finally {
      await stalled.close();
    }
  });
});

describe('token channels outside a sign-in: refresh, revoke, API calls (the emulator)', () => {
  let kudos: KudosEmulator;
  afterEach(async () => kudos?.close());

  it('refresh (success, then reauth_required), revoke, and an API call that refreshes first', async () => {
    kudos = await startKudosEmulator({ clients: [CLIENT] });
    const strategy = strategyOf(kudos, CLIENT);
    const { code } = kudos.authorize({ clientID: CLIENT.clientID, user: 'alice' });
    const issued = await exchangeCode(kudos.tokenURL, {
      clientID: CLIENT.clientID,
      clientSecret: CLIENT.clientSecret,
      code,
      redirectURI: CLIENT.redirectURIs[0] as string,
    });
    const set: KudosTokenSet = await strategy.refresh(issued.refresh_token);
    await expect(strategy.refresh('not-a-refresh-token')).rejects.toMatchObject({ code: 'reauth_required' });
    expect(recorder.of('refresh')).toEqual([
      { operation: 'refresh', method: 'POST', url: kudos.tokenURL, statusCode: 200, outcome: 'success' },
      expect.objectContaining({
        operation: 'refresh',
        outcome: 'error',
        code: 'reauth_required',
        statusCode: 400,
      }),
    ]);

    // An API call whose stored token is stale: the refresh runs inside it.
    const stored = new Map<string, KudosTokenSet>([['alice', { ...set, expiresAt: 0 }]]);
    const client = createKudosClient({
      strategy,
      tokens: { get: async (id) => stored.get(id), set: async (id, s) => void stored.set(id, s) },
    });
    recorder.clear();
    await client.json('alice', '/users/profile?fields=all');
    expect(recorder.of('api')).toEqual([
      {
        operation: 'api',
        method: 'GET',
        path: '/users/profile',
        url: `${kudos.baseURL}/users/profile`,
        statusCode: 200,
        outcome: 'success',
      },
    ]);
    expect(recorder.ended.map((e) => e.channel)).toEqual(['passport-kudos:refresh', 'passport-kudos:api']);
    await expect(client.json('alice', '/no/such/operation')).rejects.toMatchObject({ status: 404 });
    expect(recorder.of('api')[1]).toMatchObject({ outcome: 'error', statusCode: 404, code: 'api_error' });

    const latest = stored.get('alice') as KudosTokenSet;
    await strategy.revoke(latest.refreshToken as string, 'refresh_token');
    expect(recorder.of('revoke')).toEqual([
      { operation: 'revoke', method: 'POST', url: kudos.revokeURL, statusCode: 200, outcome: 'success' },
    ]);
  });
});

describe('payment channels: notification, confirm, store (the emulator’s real sender)', () => {
  let kudos: KudosEmulator;
  let shop: Listening;
  afterEach(async () => {
    await kudos?.close();
    await shop?.close();
  });

  async function setUp(store: KudosDedupeStore = new MemoryDedupeStore()) {
    kudos = await startPaymentsEmulator();
    const hook = kudosWebhook({
      secret: WEBHOOK_SECRET,
      store,
      confirm: cosmosConfirmer({ baseURL: kudos.baseURL, wallet: kudos.walletOf('bobby') }),
      onNotification: () => undefined,
    });
    shop = await listenShop(kudos, hook, WEBHOOK_SECRET);
    return hook;
  }

  it('processed: the notification (paid, received), its confirmation and its store calls', async () => {
    await setUp();
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent' });
    await kudos.idle();
    await recorder.until('notification');
    const key = `${tx.txHash}:success`;
    expect(recorder.of('notification')).toEqual([
      {
        operation: 'notification',
        source: 'notification',
        key,
        txHash: tx.txHash,
        txStatus: 'success',
        outcome: 'processed',
        paid: true,
        received: '2000000000',
        statusCode: 200,
      },
    ]);
    expect(recorder.of('confirm')).toEqual([
      { operation: 'confirm', txHash: tx.txHash, outcome: 'confirmed', received: '2000000000' },
    ]);
    expect(recorder.of('store').map((m) => [m.method, m.outcome, m.answer])).toEqual([
      ['claim', 'success', 'claimed'],
      ['complete', 'success', undefined],
    ]);
    expect(recorder.of('store')[0]).toEqual({
      operation: 'store',
      store: 'MemoryDedupeStore',
      method: 'claim',
      key,
      outcome: 'success',
      answer: 'claimed',
    });
  });

  it('refused: a forged delivery without the secret is refused as invalid_secret (401)', async () => {
    await setUp();
    const res = await fetch(`${shop.url}/webhooks/kudos?token=wrong-secret-0123456789`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    await recorder.until('notification');
    expect(recorder.of('notification')).toEqual([
      {
        operation: 'notification',
        source: 'notification',
        outcome: 'refused',
        code: 'invalid_secret',
        statusCode: 401,
      },
    ]);
    expect(recorder.of('store')).toEqual([]);
  });

  it('handler failed: kept for redrive (500), then redrive processes it as source redrive', async () => {
    let failing = true;
    kudos = await startPaymentsEmulator();
    const hook = kudosWebhook({
      secret: WEBHOOK_SECRET,
      store: new MemoryDedupeStore(),
      onNotification: () => {
        if (failing) throw new Error('the shop database is down');
      },
    });
    shop = await listenShop(kudos, hook, WEBHOOK_SECRET);
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    await recorder.until('notification');
    expect(recorder.of('notification')).toEqual([
      expect.objectContaining({
        source: 'notification',
        txHash: tx.txHash,
        outcome: 'kept',
        kept: true,
        code: 'handler_failed',
        statusCode: 500,
      }),
    ]);
    failing = false;
    expect(await hook.redrive()).toMatchObject({ processed: 1 });
    expect(recorder.of('notification')[1]).toMatchObject({
      source: 'redrive',
      outcome: 'processed',
      txHash: tx.txHash,
    });
    expect(recorder.of('store').map((m) => m.method)).toContain('kept');
  });

  it('store down: the claim errors, the notification failed with store_unavailable (503), nothing kept', async () => {
    const down: KudosDedupeStore = {
      claim: () => Promise.reject(new Error('ECONNREFUSED')),
      complete: async () => undefined,
      release: () => Promise.reject(new Error('ECONNREFUSED')),
    };
    await setUp(down);
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    await recorder.until('notification');
    expect(recorder.of('notification')).toEqual([
      expect.objectContaining({ outcome: 'failed', code: 'store_unavailable', statusCode: 503 }),
    ]);
    expect(recorder.of('notification')[0]).not.toHaveProperty('kept');
    expect(recorder.of('store')[0]).toMatchObject({ method: 'claim', outcome: 'error', store: 'Object' });
  });

  it('reconcile: a transfer read from the chain, source reconcile, duplicate after the delivery', async () => {
    const hook = await setUp();
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    await recorder.until('notification');
    expect(
      await hook.reconcileChain({ wallet: kudos.walletOf('bobby'), restURL: kudos.chainURL, since: 0 }),
    ).toMatchObject({ duplicates: 1 });
    expect(recorder.of('notification')[1]).toMatchObject({
      source: 'reconcile',
      outcome: 'duplicate',
      key: `${tx.txHash}:success`,
    });
  });
});
