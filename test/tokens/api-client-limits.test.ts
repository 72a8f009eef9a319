import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createKudosClient,
  KudosApiError,
  type KudosRefreshLock,
  KudosStrategy,
  type KudosTokenSet,
  type KudosTokenStore,
  MemoryTokenStore,
  toTokenSet,
} from '../../src/index.js';
import { rejectionOf } from '../helpers/rejection.js';

const HOUR = 3600 * 1000;

/** A real API server on 127.0.0.1 whose answer the test scripts. */
async function apiServer(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  return {
    baseURL,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function strategyFor(baseURL: string | undefined): KudosStrategy {
  return new KudosStrategy(
    {
      clientID: 'c',
      clientSecret: 's',
      callbackURL: 'http://app.test/cb',
      authURL: 'http://kudos.test',
      ...(baseURL ? { baseURL } : { tokenURL: 'http://kudos.test/api/oauth/access_token' }),
    },
    (_a, _r, profile, done) => done(null, { id: profile.id }),
  );
}

async function storeWithFreshTokens(): Promise<MemoryTokenStore> {
  const tokens = new MemoryTokenStore();
  const set: KudosTokenSet = {
    accessToken: 'at-123',
    refreshToken: 'rt-456',
    user: 'alice',
    expiresAt: Date.now() + HOUR,
    scope: ['profile'],
  };
  await tokens.set('alice', set);
  return tokens;
}

describe('createKudosClient limits (hardening)', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  it('takes the API base from the strategy when no baseURL is given; baseURL overrides it', async () => {
    const paths: string[] = [];
    const api = await apiServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    closers.push(api.close);
    const tokens = await storeWithFreshTokens();
    const fromStrategy = createKudosClient({ strategy: strategyFor(`${api.baseURL}/`), tokens });
    expect(await fromStrategy.json('alice', '/users/profile')).toEqual({ ok: true });
    const overridden = createKudosClient({
      strategy: strategyFor('http://elsewhere.invalid/api'),
      tokens,
      baseURL: `${api.baseURL}/v1`,
    });
    await overridden.json('alice', '/me');
    expect(paths).toEqual(['/api/users/profile', '/api/v1/me']);
    expect(() => createKudosClient({ strategy: strategyFor(undefined), tokens })).toThrow(/"baseURL"/);
  });

  it('rejects a stalled API with KudosApiError timeout (504) after the timeout (regression: pending for 301 s)', async () => {
    const api = await apiServer(() => undefined); // never answers
    closers.push(api.close);
    const client = createKudosClient({
      strategy: strategyFor(api.baseURL),
      tokens: await storeWithFreshTokens(),
      timeoutMs: 200,
    });
    const error = await rejectionOf(client.fetch('alice', '/v1/me'), KudosApiError);
    expect(error).toMatchObject({ code: 'timeout', status: 504, httpStatus: undefined });
    expect(error.message).toContain('200 ms');
    expect(error.message).not.toContain('at-123');
  });

  it('also when the answer starts but its body stalls (json)', async () => {
    const api = await apiServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    closers.push(api.close);
    const client = createKudosClient({
      strategy: strategyFor(api.baseURL),
      tokens: await storeWithFreshTokens(),
      timeoutMs: 200,
    });
    expect(await rejectionOf(client.json('alice', '/v1/me'), KudosApiError)).toMatchObject({
      code: 'timeout',
      status: 504,
    });
  });

  it('rejects an unreachable API with network_error (502)', async () => {
    const api = await apiServer(() => undefined);
    await api.close(); // nothing listens there any more
    const client = createKudosClient({
      strategy: strategyFor(api.baseURL),
      tokens: await storeWithFreshTokens(),
    });
    expect(await rejectionOf(client.fetch('alice', '/v1/me'), KudosApiError)).toMatchObject({
      code: 'network_error',
      status: 502,
    });
  });

  it('reads at most 1 MiB of an error body (regression: a 200 MiB 500 was read whole)', async () => {
    let written = 0;
    let closedEarly = false;
    const api = await apiServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < 200 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => {
        closedEarly = written < 200 * 1024 * 1024;
      });
      pump();
    });
    closers.push(api.close);
    const client = createKudosClient({
      strategy: strategyFor(api.baseURL),
      tokens: await storeWithFreshTokens(),
    });
    const error = await rejectionOf(client.fetch('alice', '/v1/me'), KudosApiError);
    expect(error).toMatchObject({ code: 'api_error', status: 500, httpStatus: 500 });
    await expect.poll(() => closedEarly, { timeout: 5000 }).toBe(true); // the client hung up

    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  it('rejects a 2xx answer that is not JSON with invalid_response (regression: a raw SyntaxError)', async () => {
    const api = await apiServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    });
    closers.push(api.close);
    const client = createKudosClient({
      strategy: strategyFor(api.baseURL),
      tokens: await storeWithFreshTokens(),
    });
    const error = await rejectionOf(client.json('alice', '/v1/me'), KudosApiError);
    expect(error).toMatchObject({ code: 'invalid_response', status: 502, httpStatus: 200 });
  });

  it('turns a token store or lock that throws (synchronously or not) into a rejection of the call', async () => {
    const api = await apiServer((_req, res) => res.writeHead(200).end('{}'));
    closers.push(api.close);
    const throwing: KudosTokenStore = {
      get: () => {
        throw new Error('store not connected');
      },
      set: async () => undefined,
    };
    const client = createKudosClient({ strategy: strategyFor(api.baseURL), tokens: throwing });
    await expect(client.fetch('alice', '/v1/me')).rejects.toThrow('store not connected');

    const tokens = new MemoryTokenStore();
    await tokens.set('alice', {
      ...toTokenSet({ user: 'alice', access_token: 'old' }),
      expiresAt: Date.now() - 1,
    });
    const lock: KudosRefreshLock = {
      withLock: () => {
        throw new Error('lock server down');
      },
    };
    const locked = createKudosClient({ strategy: strategyFor(api.baseURL), tokens, lock });
    await expect(locked.fetch('alice', '/v1/me')).rejects.toThrow('lock server down');
  });

  it('refuses a timeoutMs that is not a positive number', () => {
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() =>
        createKudosClient({
          strategy: strategyFor('http://k.test/api'),
          tokens: new MemoryTokenStore(),
          timeoutMs,
        }),
      ).toThrow(/"timeoutMs"/);
    }
  });
});

describe('token set expiry is clamped to the one-hour rule', () => {
  it('turns expires_in 1e308 into one hour (regression: expiresAt was Infinity, never refreshed)', () => {
    const set = toTokenSet(
      { user: 'alice', access_token: 'opaque', expires_in: 1e308 },
      undefined,
      1_000_000,
    );
    expect(set.expiresAt).toBe(1_000_000 + HOUR);
    expect(
      toTokenSet({ user: 'alice', access_token: 'opaque', expires_in: 60 }, undefined, 0).expiresAt,
    ).toBe(60_000);
  });

  describe('2xx bodies are capped (maxResponseBytes, default 4 MiB)', () => {
    const closers: Array<() => Promise<void>> = [];
    afterEach(async () => {
      await Promise.all(closers.splice(0).map((close) => close()));
    });

    /** An API whose 2xx answer is `bytes` long, streamed in 64 kB chunks, with or without Content-Length. */
    async function bigAnswer(bytes: number, withLength: boolean) {
      let total = 0;
      const api = await apiServer((_req, res) => {
        let sent = 0;
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(withLength ? { 'content-length': String(bytes) } : {}),
        });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (sent < bytes) {
            const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
            sent += part.length;
            total += part.length;
            if (!res.write(part)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => undefined);
        pump();
      });
      closers.push(api.close);
      return { api, sentBytes: () => total };
    }

    it.each([true, false])(
      'client.json() rejects a 100 MiB answer with response_too_large (Content-Length: %s)',
      async (withLength) => {
        const { api, sentBytes } = await bigAnswer(100 * 1024 * 1024, withLength);
        const client = createKudosClient({
          strategy: strategyFor(api.baseURL),
          tokens: await storeWithFreshTokens(),
        });
        const error = await rejectionOf(client.json('alice', '/big'), KudosApiError);
        expect(error).toBeInstanceOf(KudosApiError);
        expect(error).toMatchObject({ code: 'response_too_large', status: 502, httpStatus: 200 });
        expect(sentBytes()).toBeLessThan(50 * 1024 * 1024); // the connection was given up early
      },
    );

    it('the body of a client.fetch() answer errors past the cap; a small one reads whole', async () => {
      const { api } = await bigAnswer(2 * 1024 * 1024, false);
      const client = createKudosClient({
        strategy: strategyFor(api.baseURL),
        tokens: await storeWithFreshTokens(),
        maxResponseBytes: 1024 * 1024,
      });
      const res = await client.fetch('alice', '/big');
      expect(await rejectionOf(res.text(), KudosApiError)).toMatchObject({ code: 'response_too_large' });
      const roomy = createKudosClient({
        strategy: strategyFor(api.baseURL),
        tokens: await storeWithFreshTokens(),
        maxResponseBytes: 4 * 1024 * 1024,
      });
      expect((await (await roomy.fetch('alice', '/big')).arrayBuffer()).byteLength).toBe(2 * 1024 * 1024);
    });

    it('checks the option', async () => {
      const tokens = await storeWithFreshTokens();
      expect(() =>
        createKudosClient({ strategy: strategyFor('http://a.test'), tokens, maxResponseBytes: 0 }),
      ).toThrow('"maxResponseBytes"');
    });
  });
});
