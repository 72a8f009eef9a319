// One HTTP client: the token request, an API call, the profile request, the chain lookup and
// reconcile's lookup meet the same misbehaving servers (real ones, port 0) and fail the same way:
// one time limit, one size cap, one JSON check, one error mapping, no secret in any error.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cosmosConfirmer,
  KudosNotificationError,
  parseKudosNotification,
} from '../../packages/kudos-payments/src/index.js';
import {
  createKudosClient,
  KudosApiError,
  type KudosError,
  KudosTokenError,
  type KudosTokenSet,
  MemoryTokenStore,
} from '../../src/index.js';
import { requestProfile } from '../../src/tokens/profile-request.js';
import { requestTokens } from '../../src/tokens/token-request.js';
import { WALLETS } from '../helpers/chain-answer.mjs';
import { type Listening, listenLocal } from '../helpers/listen.js';

const CLIENT_SECRET = 'client-secret-Zq81';
const CODE = 'auth-code-Yp72';
const ACCESS_TOKEN = 'access-token-Xo63';
const SECRETS = [CLIENT_SECRET, CODE, ACCESS_TOKEN];
const TX_HASH = 'AB'.repeat(32);
/**
 * The time limit of the one test that is about it (a server that never answers): short, so that the
 * test is quick. Every other test gives a limit no busy machine reaches, so that what it checks (a
 * cap, a word, a refused body) is what it gets, never a timeout (regression: a 2 MiB body read past
 * 300 ms on a loaded machine answered timeout/504 instead of the cap's error).
 */
const LIMIT_MS = 300;
const ROOMY_MS = 60_000;
const CAP = 64 * 1024;

type Behaviour = 'stall' | 'huge' | 'not_json' | 'word' | 'unknown_word' | 'echo';

/** What each behaviour answers: never, more than any cap, not JSON, a word, or the request echoed back. */
function answer(behaviour: Behaviour, req: http.IncomingMessage, res: http.ServerResponse): void {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    if (behaviour === 'stall') return;
    if (behaviour === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`"${'x'.repeat(2 * 1024 * 1024)}"`); // past every cap (the largest is 1 MiB)
    } else if (behaviour === 'not_json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>ok</html>');
    } else if (behaviour === 'word') {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('LOGIN_NEEDED');
    } else if (behaviour === 'unknown_word') {
      res.writeHead(429, { 'content-type': 'text/plain' }).end('RATE_LIMITED');
    } else {
      // Everything the request carried, as sent and decoded, as the error's description.
      const echo = `${body} ${decodeURIComponent(body)} ${req.headers.authorization ?? ''}`;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_request', error_description: echo }));
    }
  });
}

/** Each user of the client, asked once of a server at `base`: its rejection. */
const USERS: Record<string, (base: string, limitMs?: number) => Promise<unknown>> = {
  'token request': (base, limitMs = ROOMY_MS) =>
    requestTokens(
      `${base}/oauth/access_token`,
      { grant_type: 'authorization_code', code: CODE, client_id: 'c', client_secret: CLIENT_SECRET },
      { timeout: limitMs },
    ),
  'API call (client.json)': async (base, limitMs = ROOMY_MS) => {
    const tokens = new MemoryTokenStore();
    const set: KudosTokenSet = {
      accessToken: ACCESS_TOKEN,
      refreshToken: 'rt',
      user: 'alice',
      expiresAt: Date.now() + 3_600_000,
      scope: ['profile'],
    };
    await tokens.set('alice', set);
    const strategy = { refresh: () => Promise.reject(new Error('no refresh here')), baseURL: base };
    const client = createKudosClient({ strategy, tokens, timeoutMs: limitMs, maxResponseBytes: CAP });
    return client.json('alice', '/v1/me');
  },
  'profile request': (base, limitMs = ROOMY_MS) =>
    requestProfile({ url: `${base}/users/profile`, accessToken: ACCESS_TOKEN, timeout: limitMs }),
  'chain lookup (cosmosConfirmer)': (base, limitMs = ROOMY_MS) => {
    const confirm = cosmosConfirmer({
      baseURL: base,
      wallet: WALLETS.shop,
      timeoutMs: limitMs,
      maxResponseBytes: CAP,
    });
    const notification = parseKudosNotification({
      tx: {
        txHash: TX_HASH,
        status: 'success',
        amount: { amount: '1', denom: 'nanokudos' },
        to: [WALLETS.shop],
      },
    });
    return Promise.resolve(confirm(notification));
  },
};

/** The client's own error: the confirmer wraps it as its cause (confirmation_unavailable, 503). */
function clientError(error: unknown): KudosError {
  if (error instanceof KudosNotificationError) {
    expect(error.code).toBe('confirmation_unavailable');
    return error.cause as KudosError;
  }
  return error as KudosError;
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    (value) => {
      throw new Error(`resolved with ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );

describe.each(Object.entries(USERS))('the one HTTP client, used by the %s', (_name, ask) => {
  const servers = new Map<Behaviour, Listening>();
  beforeAll(async () => {
    for (const behaviour of ['stall', 'huge', 'not_json', 'word', 'unknown_word', 'echo'] as const) {
      servers.set(behaviour, await listenLocal(http.createServer((req, res) => answer(behaviour, req, res))));
    }
  });
  afterAll(async () => {
    for (const server of servers.values()) await server.close();
  });
  const url = (behaviour: Behaviour) => servers.get(behaviour)?.url as string;
  const isToken = _name === 'token request';

  it('gives up after its time limit: timeout (504)', async () => {
    const error = clientError(await rejection(ask(url('stall'), LIMIT_MS)));
    expect(error).toBeInstanceOf(isToken ? KudosTokenError : KudosApiError);
    expect(error).toMatchObject({ code: 'timeout', status: 504 });
    expect(error.message).toContain(`within ${LIMIT_MS} ms`);
  });

  it('cannot reach a closed port: network_error (502), named by its code', async () => {
    const closed = await listenLocal(http.createServer());
    await closed.close();
    const error = clientError(await rejection(ask(closed.url)));
    expect(error).toMatchObject({ code: 'network_error', status: 502 });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('stops reading a 2xx body past its cap', async () => {
    const error = clientError(await rejection(ask(url('huge'))));
    expect(error).toMatchObject({
      code: isToken ? 'invalid_token_response' : 'response_too_large',
      status: 502,
    });
    expect(error.message).toMatch(/more than \d+ bytes/);
  });

  it('refuses a 2xx answer that is not JSON', async () => {
    const error = clientError(await rejection(ask(url('not_json'))));
    expect(error).toMatchObject({
      code: isToken ? 'invalid_token_response' : 'invalid_response',
      status: 502,
    });
    expect(error.message).toContain('not with JSON');
  });

  it('reads the service’s word of an error answer, a word of no row as the catch-all with serviceCode', async () => {
    if (_name.startsWith('chain')) {
      // The chain answers no words: any error answer is "retry later", the status named.
      const error = await rejection(ask(url('word')));
      expect(error).toMatchObject({ code: 'confirmation_unavailable', status: 503 });
      expect((error as Error).message).toContain('HTTP 401');
      return;
    }
    expect(clientError(await rejection(ask(url('word'))))).toMatchObject({
      code: 'LOGIN_NEEDED',
      httpStatus: 401,
      status: isToken ? 502 : 401,
    });
    expect(clientError(await rejection(ask(url('unknown_word'))))).toMatchObject({
      code: isToken ? 'token_endpoint_error' : 'api_error',
      serviceCode: 'RATE_LIMITED',
      httpStatus: 429,
    });
  });

  it('puts no secret it sent into the error, in any encoding, even when the answer echoes them', async () => {
    const error = await rejection(ask(url('echo')));
    const seen = [
      String(error),
      JSON.stringify(error),
      JSON.stringify(Object.entries(error as object)),
      (error as { body?: string }).body ?? '',
      String((error as Error).cause ?? ''),
    ].join('\n');
    for (const secret of SECRETS) {
      expect(seen).not.toContain(secret);
      expect(seen).not.toContain(encodeURIComponent(secret));
    }
  });
});
