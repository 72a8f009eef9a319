import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateTokenResponse } from '../../packages/kudos-core/src/protocol/token-response.js';
import {
  createKudosClient,
  KudosApiError,
  KudosStrategy,
  KudosTokenError,
  MemoryTokenStore,
} from '../../src/index.js';
import { rejectionOf } from '../helpers/rejection.js';

// The API client never hands the API's answer, the bearer token or a request body to another origin,
// and no error it throws carries a token, a secret or URL credentials.

const HOUR = 3600 * 1000;

/** A real server on 127.0.0.1: what it was sent, and its origin. */
async function server(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const seen: Array<{ method: string; url: string; body: string; authorization: string | undefined }> = [];
  const s = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body,
        authorization: req.headers.authorization,
      });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  };
}

async function clientOf(baseURL: string, accessToken = 'at-123') {
  const strategy = new KudosStrategy(
    {
      clientID: 'c',
      clientSecret: 's',
      callbackURL: 'http://app.test/cb',
      authURL: 'http://kudos.test',
      baseURL,
    },
    (_a, _r, profile, done) => done(null, { id: profile.id }),
  );
  const tokens = new MemoryTokenStore();
  await tokens.set('alice', {
    accessToken,
    refreshToken: 'rt-456',
    user: 'alice',
    expiresAt: Date.now() + HOUR,
    scope: ['profile'],
  });
  return createKudosClient({ strategy, tokens });
}

describe('the API client and redirects', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  it('never follows a redirect to another origin: json() and fetch() fail, the other origin sees nothing', async () => {
    const elsewhere = await server((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"evil":true}'),
    );
    closers.push(elsewhere.close);
    const api = await server((req, res) => {
      const status = req.url?.includes('307') ? 307 : 302;
      res.writeHead(status, { location: `${elsewhere.origin}/steal` }).end();
    });
    closers.push(api.close);
    const client = await clientOf(`${api.origin}/api`);
    const json = await rejectionOf(client.json('alice', '/v1/me'), KudosApiError);
    expect(json).toBeInstanceOf(KudosApiError);
    expect(json).toMatchObject({ code: 'invalid_response', httpStatus: 302 });
    expect(String((json as Error).message)).toContain('redirect to another origin');
    const post = await rejectionOf(
      client.fetch('alice', '/v1/307', {
        method: 'POST',
        body: 'secret-order-data',
        headers: { 'content-type': 'text/plain' },
      }),
      KudosApiError,
    );
    expect(post).toMatchObject({ code: 'invalid_response', httpStatus: 307 });
    expect(elsewhere.seen).toEqual([]); // no answer taken, no body re-sent, no token shown
  });

  it('follows a redirect within the API’s origin, with the token, and 307 keeps the body there', async () => {
    const api = await server((req, res, body) => {
      if (req.url === '/api/old') return res.writeHead(302, { location: '/api/new' }).end();
      if (req.url === '/api/post-old') return res.writeHead(307, { location: '/api/post-new' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url, body }));
    });
    closers.push(api.close);
    const client = await clientOf(`${api.origin}/api`);
    expect(await client.json('alice', '/old')).toEqual({ url: '/api/new', body: '' });
    const res = await client.fetch('alice', '/post-old', { method: 'POST', body: 'again' });
    expect(await res.json()).toEqual({ url: '/api/post-new', body: 'again' });
    expect(api.seen.map((s) => s.authorization)).toEqual(Array(4).fill('Bearer at-123'));
  });
});

describe('tokens and credentials never reach an error', () => {
  it('refuses a token response whose token a header cannot carry (invalid_token_response)', () => {
    for (const token of ['at\n123', 'at 123', 'atö']) {
      for (const field of ['access_token', 'refresh_token']) {
        const error = (() => {
          try {
            validateTokenResponse({ access_token: 'ok', user: 'alice', [field]: token });
            return undefined;
          } catch (caught) {
            return caught;
          }
        })();
        expect(error).toBeInstanceOf(KudosTokenError);
        expect(error).toMatchObject({ code: 'invalid_token_response' });
        expect(String((error as Error).message)).toContain(`"${field}"`);
        expect(String((error as Error).message)).not.toContain(token);
      }
    }
  });

  it('a stored token with a newline is reauth_required, and neither the error nor its cause holds it', async () => {
    const api = await server((_req, res) => res.writeHead(200).end('{}'));
    try {
      const client = await clientOf(`${api.origin}/api`, 'secret-token\nX-Evil: 1');
      for (const call of [client.fetch('alice', '/v1/me'), client.json('alice', '/v1/me')]) {
        const error = await rejectionOf(call);
        expect(error).toMatchObject({ code: 'reauth_required' });
        const seen = JSON.stringify([String(error), (error as Error).stack, String((error as Error).cause)]);
        expect(seen).not.toContain('secret-token');
      }
      expect(api.seen).toEqual([]);
    } finally {
      await api.close();
    }
  });

  it('refuses a baseURL with credentials when made, without echoing the password', () => {
    const strategy = new KudosStrategy(
      {
        clientID: 'c',
        clientSecret: 's',
        callbackURL: 'http://app.test/cb',
        authURL: 'http://kudos.test',
        baseURL: 'http://kudos.test/api',
      },
      (_a, _r, profile, done) => done(null, { id: profile.id }),
    );
    const attempt = () =>
      createKudosClient({
        strategy,
        tokens: new MemoryTokenStore(),
        baseURL: 'http://user:hunter2@kudos.test/api',
      });
    expect(attempt).toThrow(TypeError);
    expect(attempt).toThrow('without credentials');
    expect(() => attempt()).not.toThrow('hunter2');
    expect(
      () =>
        new KudosStrategy(
          {
            clientID: 'c',
            clientSecret: 's',
            callbackURL: 'http://app.test/cb',
            authURL: 'http://kudos.test',
            baseURL: 'http://user:hunter2@kudos.test/api',
          },
          (_a, _r, profile, done) => done(null, { id: profile.id }),
        ),
    ).toThrow(/"baseURL" must not carry credentials/);
  });
});
