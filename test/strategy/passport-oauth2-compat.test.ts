import { readFileSync } from 'node:fs';
import type { ErrorRequestHandler, Express } from 'express';
import session from 'express-session';
import passport from 'passport';
import OAuth2Strategy from 'passport-oauth2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  KudosApiError,
  KudosError,
  type KudosProfile,
  KudosStrategy,
  type KudosStrategyOptions,
  KudosTokenError,
} from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { EXPRESS_FLAVORS, type ExpressFlavor } from '../helpers/express-app.js';
import { type Listening, listenLocal } from '../helpers/listen.js';
import { runStrategy } from '../helpers/run-strategy.js';
import { type FakeTokenServer, startTokenServer, tokenResponse } from '../helpers/token-server.js';

// The passport-oauth2 behaviours a user of its family relies on (issue: "Passport-native"), each
// against a real token endpoint on 127.0.0.1, and the callback checks on Express 4 and 5.

type Verify = (
  at: string,
  rt: string | undefined,
  profile: KudosProfile,
  done: (e: unknown, u?: Express.User, i?: object) => void,
) => void;

const recordProfile: Verify = (_at, _rt, profile, done) => done(null, { profile });

let tokens: FakeTokenServer;
beforeAll(async () => {
  tokens = await startTokenServer();
});
afterEach(() => tokens.reset());
afterAll(() => tokens.close());

function options(extra: Partial<KudosStrategyOptions> = {}): KudosStrategyOptions {
  return {
    clientID: 'c',
    clientSecret: 's',
    callbackURL: 'http://app.test/cb',
    authURL: 'https://kudos.example',
    baseURL: tokens.baseURL,
    state: false,
    ...extra,
  };
}

/** Counts every call into passport-oauth2's own token request (node-oauth) on a strategy. */
function watchNodeOauth(strategy: KudosStrategy): { calls: number } {
  const seen = { calls: 0 };
  const oauth2 = (strategy as unknown as { _oauth2: { getOAuthAccessToken: unknown } })._oauth2;
  oauth2.getOAuthAccessToken = () => {
    seen.calls++;
  };
  return seen;
}

/** A real Express app: /login and /cb authenticate, errors answered as JSON with their status. */
async function startExpress(flavor: ExpressFlavor, strategy: KudosStrategy): Promise<Listening> {
  const express = (flavor === 'express4' ? await import('express4') : await import('express5')).default;
  const app: Express = express();
  const authenticator = new passport.Passport();
  authenticator.use(strategy);
  authenticator.serializeUser((user, done) => done(null, JSON.stringify(user)));
  authenticator.deserializeUser((json: string, done) => done(null, JSON.parse(json)));
  app.use(session({ secret: 'compat-test-secret', resave: false, saveUninitialized: false }));
  app.use(express.urlencoded({ extended: true }));
  app.use(authenticator.initialize());
  app.use(authenticator.session());
  app.get('/login', authenticator.authenticate('kudos'));
  // A custom callback sees exactly what the strategy passed to success().
  app.get('/cb-custom', (req, res, next) =>
    authenticator.authenticate('kudos', (err: unknown, user: unknown, info: unknown) =>
      err ? next(err) : res.json({ user, info }),
    )(req, res, next),
  );
  for (const method of ['get', 'post'] as const) {
    app[method]('/cb', authenticator.authenticate('kudos'), (req, res) => {
      res.json({
        user: req.user,
        authInfo: (req as { authInfo?: unknown }).authInfo ?? null,
        messages: (req.session as { messages?: unknown }).messages ?? null,
      });
    });
  }
  const onError: ErrorRequestHandler = (err: KudosError, _req, res, _next) => {
    res.status(typeof err.status === 'number' ? err.status : 500).json({
      name: err.name,
      code: err.code,
      message: err.message,
    });
  };
  app.use(onError);
  return listenLocal(app);
}

describe.each(EXPRESS_FLAVORS)('1. the callback never falls through to passport-oauth2 (%s)', (flavor) => {
  const malformed = [
    'code[]=x',
    'code[]=x&code[]=y',
    'code[a]=x',
    'code=a&code=b',
    'auth_code[]=x',
    'code=x&state=a&state=b',
    'code=x&state[]=a',
    'error=access_denied&error=access_denied',
    'error=server_error&error=x',
    'error[]=server_error',
    'error=',
    'state=only',
    'error_description=x',
    'error_uri=https%3A%2F%2Fx',
  ];

  for (const state of [false, true]) {
    it.each(malformed)(
      `GET ?%s (state ${state}) is KudosError invalid_request 400, nothing sent`,
      async (query) => {
        let verified = 0;
        const strategy = new KudosStrategy(options({ state, callbackURL: '/cb' }), (_a, _r, _p, done) => {
          verified++;
          done(null, { id: 'x' });
        });
        const nodeOauth = watchNodeOauth(strategy);
        const app = await startExpress(flavor, strategy);
        try {
          const res = await fetch(`${app.url}/cb?${query}`, { redirect: 'manual' });
          expect(res.status).toBe(400);
          expect(await res.json()).toMatchObject({ name: 'KudosError', code: 'invalid_request' });
        } finally {
          await app.close();
        }
        expect(tokens.requests).toHaveLength(0);
        expect(nodeOauth.calls).toBe(0);
        expect(verified).toBe(0);
      },
    );
  }

  it.each([
    { 'code[]': 'x' },
    { code: ['a', 'b'] },
    { error: ['access_denied', 'access_denied'] },
    { 'error[x]': 'server_error' },
  ])('POST body %j is invalid_request, nothing sent', async (body) => {
    const strategy = new KudosStrategy(options({ callbackURL: '/cb' }), recordProfile);
    const nodeOauth = watchNodeOauth(strategy);
    const app = await startExpress(flavor, strategy);
    try {
      const form = new URLSearchParams();
      for (const [key, value] of Object.entries(body)) {
        for (const v of [value].flat()) form.append(key, v);
      }
      const res = await fetch(`${app.url}/cb`, { method: 'POST', body: form });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_request' });
    } finally {
      await app.close();
    }
    expect(tokens.requests).toHaveLength(0);
    expect(nodeOauth.calls).toBe(0);
  });

  it('only a request without any callback parameter starts the login', async () => {
    const strategy = new KudosStrategy(options({ state: true, callbackURL: '/cb' }), recordProfile);
    const app = await startExpress(flavor, strategy);
    try {
      const res = await fetch(`${app.url}/cb?returnTo=%2Fbasket&codes=1`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(locationOf(res).origin).toBe('https://kudos.example');
    } finally {
      await app.close();
    }
  });

  it('a valid callback logs in through the Kudos token request, not node-oauth', async () => {
    const strategy = new KudosStrategy(options({ callbackURL: '/cb' }), recordProfile);
    const nodeOauth = watchNodeOauth(strategy);
    const app = await startExpress(flavor, strategy);
    try {
      const res = await fetch(`${app.url}/cb?code=good`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ user: { profile: { id: 'alice-example' } } });
    } finally {
      await app.close();
    }
    expect(tokens.requests).toHaveLength(1);
    expect(nodeOauth.calls).toBe(0);
  });
});

describe('1. a unit test that sets only req.query (chai-passport-strategy style) runs KudosStrategy', () => {
  /** As chai-passport-strategy builds it: method, url '/', empty headers; the test sets req.query. */
  function chaiRequest(query: Record<string, unknown>): { url: string; query: never } {
    return { url: '/', query: query as never };
  }

  it('exchanges req.query.code at the token endpoint and succeeds', async () => {
    const strategy = new KudosStrategy(options(), recordProfile);
    const nodeOauth = watchNodeOauth(strategy);
    const outcome = await runStrategy(strategy, {
      ...chaiRequest({ code: 'SplxlOBeZQQYbYS6WxSbIA' }),
      headers: {},
    });
    expect(outcome).toMatchObject({ action: 'success', user: { profile: { id: 'alice-example' } } });
    expect(tokens.requests[0]?.form.code).toBe('SplxlOBeZQQYbYS6WxSbIA');
    expect(nodeOauth.calls).toBe(0);
  });

  it('reads req.query.error as the refusal or the error it is', async () => {
    const strategy = new KudosStrategy(options(), recordProfile);
    expect(await runStrategy(strategy, chaiRequest({ error: 'access_denied' }))).toMatchObject({
      action: 'fail',
      status: 403,
    });
    const outcome = await runStrategy(
      strategy,
      chaiRequest({ error: 'invalid_scope', error_description: 'no' }),
    );
    expect(outcome).toMatchObject({ action: 'error', error: { code: 'invalid_scope', description: 'no' } });
  });

  it('refuses an array in req.query.code with invalid_request', async () => {
    const strategy = new KudosStrategy(options(), recordProfile);
    const outcome = await runStrategy(strategy, chaiRequest({ code: ['a'] }));
    expect(outcome).toMatchObject({ action: 'error', error: { code: 'invalid_request', status: 400 } });
    expect((outcome as { error: unknown }).error).toBeInstanceOf(KudosError);
    expect(tokens.requests).toHaveLength(0);
  });
});

describe('2. userProfile(accessToken, done)', () => {
  it('by default answers the profile of the token response, with no second request', async () => {
    const strategy = new KudosStrategy(options(), recordProfile);
    const outcome = await runStrategy(strategy, { url: '/cb?code=c' });
    expect(outcome).toMatchObject({
      action: 'success',
      user: { profile: { provider: 'kudos', id: 'alice-example', displayName: 'Alice Example' } },
    });
    expect(tokens.requests.map((r) => r.path)).toEqual(['/oauth/access_token']);
  });

  it('an override is called with the access token, and its profile is what verify gets', async () => {
    const seen: string[] = [];
    class ShopStrategy extends KudosStrategy {
      override userProfile(accessToken: string, done: (err?: unknown, profile?: unknown) => void): void {
        seen.push(accessToken);
        super.userProfile(accessToken, (err, profile) => {
          if (err) return done(err);
          done(null, { ...(profile as KudosProfile), tier: 'gold' });
        });
      }
    }
    const outcome = await runStrategy(new ShopStrategy(options(), recordProfile), { url: '/cb?code=c' });
    expect(seen).toEqual([tokenResponse().access_token]);
    expect(outcome).toMatchObject({
      action: 'success',
      user: { profile: { id: 'alice-example', tier: 'gold' } },
    });
  });

  it('an override that fails is error(), and verify is not called', async () => {
    let verified = false;
    class Failing extends KudosStrategy {
      override userProfile(_at: string, done: (err?: unknown) => void): void {
        setTimeout(() => done(new Error('profile service down')), 1);
      }
    }
    const outcome = await runStrategy(
      new Failing(options(), (_a, _r, _p, done) => {
        verified = true;
        done(null, {});
      }),
      { url: '/cb?code=c' },
    );
    expect(outcome).toMatchObject({ action: 'error', error: { message: 'profile service down' } });
    expect(verified).toBe(false);
  });

  it('an override that throws is error()', async () => {
    class Throwing extends KudosStrategy {
      override userProfile(): void {
        throw new Error('bug in override');
      }
    }
    const outcome = await runStrategy(new Throwing(options(), recordProfile), { url: '/cb?code=c' });
    expect(outcome).toMatchObject({ action: 'error', error: { message: 'bug in override' } });
  });
});

describe('3. skipUserProfile', () => {
  const forms: Array<[string, KudosStrategyOptions['skipUserProfile']]> = [
    ['true', true],
    ['a function returning true', () => true],
    [
      'a (accessToken, done) function',
      (_at: string, done: (e: unknown, skip?: boolean) => void) => done(null, true),
    ],
    ['an async function', async () => true],
  ];

  it.each(forms)('%s skips userProfile(); verify gets the Kudos profile', async (_name, skip) => {
    let called = 0;
    class Counting extends KudosStrategy {
      override userProfile(at: string, done: (err?: unknown, profile?: unknown) => void): void {
        called++;
        super.userProfile(at, done);
      }
    }
    const outcome = await runStrategy(new Counting(options({ skipUserProfile: skip }), recordProfile), {
      url: '/cb?code=c',
    });
    expect(called).toBe(0);
    expect(outcome).toMatchObject({ action: 'success', user: { profile: { id: 'alice-example' } } });
  });

  it.each([
    ['false', false],
    ['a function returning false', () => false],
    [
      'a (accessToken, done) function answering false',
      (_at: string, done: (e: unknown, s?: boolean) => void) => done(null, false),
    ],
    ['an async function resolving false', async () => false],
  ] as Array<[string, KudosStrategyOptions['skipUserProfile']]>)(
    '%s calls userProfile()',
    async (_name, skip) => {
      let called = 0;
      class Counting extends KudosStrategy {
        override userProfile(_at: string, done: (err?: unknown, profile?: unknown) => void): void {
          called++;
          done(null, { custom: true });
        }
      }
      const outcome = await runStrategy(new Counting(options({ skipUserProfile: skip }), recordProfile), {
        url: '/cb?code=c',
      });
      expect(called).toBe(1);
      expect(outcome).toMatchObject({ action: 'success', user: { profile: { custom: true } } });
    },
  );

  it('gives the access token to the function, and its error to error()', async () => {
    const tokensSeen: string[] = [];
    const skip = (at: string, done: (e: unknown, s?: boolean) => void) => {
      tokensSeen.push(at);
      done(new Error('cannot decide'));
    };
    const outcome = await runStrategy(new KudosStrategy(options({ skipUserProfile: skip }), recordProfile), {
      url: '/cb?code=c',
    });
    expect(tokensSeen).toEqual([tokenResponse().access_token]);
    expect(outcome).toMatchObject({ action: 'error', error: { message: 'cannot decide' } });
    const rejecting = async () => {
      throw new Error('async cannot decide');
    };
    expect(
      await runStrategy(new KudosStrategy(options({ skipUserProfile: rejecting }), recordProfile), {
        url: '/cb?code=c',
      }),
    ).toMatchObject({ action: 'error', error: { message: 'async cannot decide' } });
  });

  it('must be a boolean or a function', () => {
    expect(() => new KudosStrategy(options({ skipUserProfile: 'yes' as never }), recordProfile)).toThrow(
      'KudosStrategy option "skipUserProfile" must be a boolean or a function',
    );
  });
});

describe('4. parseErrorResponse(body, status)', () => {
  it('is called with the body and status of an error answer; the Error it returns is what error() gets', async () => {
    tokens.answer = { kind: 'text', status: 400, body: 'INVALID_CLIENT_CRED' };
    const calls: unknown[][] = [];
    class Custom extends KudosStrategy {
      override parseErrorResponse(body: string, status: number): Error | null {
        calls.push([body, status]);
        return Object.assign(new Error('Custom OAuth error'), { body, status });
      }
    }
    const outcome = await runStrategy(new Custom(options(), recordProfile), { url: '/cb?code=c' });
    expect(calls).toEqual([['INVALID_CLIENT_CRED', 400]]);
    expect(outcome).toMatchObject({
      action: 'error',
      error: { message: 'Custom OAuth error', body: 'INVALID_CLIENT_CRED', status: 400 },
    });
  });

  it('is called for a JSON error answer too', async () => {
    tokens.answer = { kind: 'json', status: 401, body: { error: 'invalid_client' } };
    class Custom extends KudosStrategy {
      override parseErrorResponse(body: string, status: number): Error | null {
        const json = JSON.parse(body) as { error: string };
        return new OAuth2Strategy.TokenError(undefined, json.error, undefined, status);
      }
    }
    const outcome = await runStrategy(
      new Custom(options({ clientSecret: 'long-client-secret' }), recordProfile),
      {
        url: '/cb?code=long-authorization-code',
      },
    );
    expect((outcome as { error: unknown }).error).toBeInstanceOf(OAuth2Strategy.TokenError);
    expect(outcome).toMatchObject({ error: { code: 'invalid_client', status: 401 } });
  });

  it('when it throws, the error is InternalOAuthError wrapping the answer, as in passport-oauth2', async () => {
    tokens.answer = { kind: 'text', status: 500, body: 'INVALID_CLIENT_CRED' };
    class Custom extends KudosStrategy {
      override parseErrorResponse(): Error | null {
        throw new Error('Whoops');
      }
    }
    const outcome = await runStrategy(new Custom(options(), recordProfile), { url: '/cb?code=c' });
    const error = (outcome as { error: unknown }).error;
    expect(error).toBeInstanceOf(OAuth2Strategy.InternalOAuthError);
    expect(error).toMatchObject({
      message: 'Failed to obtain access token',
      oauthError: { statusCode: 500, data: 'INVALID_CLIENT_CRED' },
    });
  });

  it.each([
    ['returns null', () => null],
    ['returns something that is not an Error', () => ({ message: 'not an error' })],
  ])('when it %s, the KudosTokenError stands', async (_name, parse) => {
    tokens.answer = { kind: 'text', status: 500, body: 'INVALID_CLIENT_CRED' };
    class Custom extends KudosStrategy {
      override parseErrorResponse(): Error | null {
        return parse() as Error | null;
      }
    }
    const outcome = await runStrategy(new Custom(options(), recordProfile), { url: '/cb?code=c' });
    const error = (outcome as { error: unknown }).error;
    expect(error).toBeInstanceOf(KudosTokenError);
    expect(error).toMatchObject({ code: 'INVALID_CLIENT_CRED', httpStatus: 500 });
  });

  it('gets the body with the request secrets redacted', async () => {
    tokens.answer = { kind: 'text', status: 400, body: 'bad code c and secret s-very-secret' };
    let seen = '';
    class Custom extends KudosStrategy {
      override parseErrorResponse(body: string): Error | null {
        seen = body;
        return null;
      }
    }
    await runStrategy(new Custom(options({ clientSecret: 's-very-secret' }), recordProfile), {
      url: '/cb?code=the-secret-code',
    });
    expect(seen).not.toContain('s-very-secret');
    expect(seen).toContain('[REDACTED]');
  });
});

describe('5. tokenParams() values that are not strings', () => {
  it('are sent as passport-oauth2 sends them: text, repeated keys', async () => {
    class Params extends KudosStrategy {
      override tokenParams(): object {
        return { n: 42, yes: true, no: false, list: ['x', 'y z'], audience: 'shop' };
      }
    }
    await runStrategy(new Params(options(), recordProfile), { url: '/cb?code=c' });
    const sent = new URLSearchParams(tokens.requests[0]?.raw);
    expect(sent.get('n')).toBe('42');
    expect(sent.get('yes')).toBe('true');
    expect(sent.get('no')).toBe('false');
    expect(sent.getAll('list')).toEqual(['x', 'y z']);
    expect(sent.get('audience')).toBe('shop');
    expect(sent.get('grant_type')).toBe('authorization_code');
  });

  it('cannot replace the fields of the exchange itself', async () => {
    class Params extends KudosStrategy {
      override tokenParams(): object {
        return { grant_type: 'password', code: 'forged', client_secret: 'other' };
      }
    }
    await runStrategy(new Params(options(), recordProfile), { url: '/cb?code=real' });
    expect(tokens.requests[0]?.form).toMatchObject({
      grant_type: 'authorization_code',
      code: 'real',
      client_secret: 's',
    });
  });
});

describe.each(EXPRESS_FLAVORS)('6. X-Forwarded-Proto in any case, with proxy: true (%s)', (flavor) => {
  it.each(['HTTPS', 'https', 'Https', 'HTTPS, http'])(
    '"%s" gives an https:// callback URL',
    async (proto) => {
      const strategy = new KudosStrategy(options({ callbackURL: '/cb', proxy: true }), recordProfile);
      const app = await startExpress(flavor, strategy);
      try {
        const start = await fetch(`${app.url}/login`, {
          redirect: 'manual',
          headers: { 'x-forwarded-proto': proto },
        });
        expect(locationOf(start).searchParams.get('redirect_uri')).toMatch(
          /^https:\/\/127\.0\.0\.1:\d+\/cb$/,
        );
        await fetch(`${app.url}/cb?code=c`, { headers: { 'x-forwarded-proto': proto } });
        expect(tokens.requests[0]?.form.redirect_uri).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/cb$/);
      } finally {
        await app.close();
      }
    },
  );
});

describe.each(EXPRESS_FLAVORS)(
  '7. done(null, user, info) with an info that is not an object (%s)',
  (flavor) => {
    it("reaches Passport unchanged: a custom callback and req.authInfo see 'hi'", async () => {
      const strategy = new KudosStrategy(options({ callbackURL: '/cb' }), (_a, _r, profile, done) =>
        done(null, { id: profile.id }, 'hi' as never),
      );
      const app = await startExpress(flavor, strategy);
      try {
        const res = await fetch(`${app.url}/cb?code=c`);
        expect(await res.json()).toEqual({ user: { id: 'alice-example' }, authInfo: 'hi', messages: null });
        const custom = await fetch(`${app.url}/cb-custom?code=c`);
        expect(await custom.json()).toEqual({ user: { id: 'alice-example' }, info: 'hi' });
      } finally {
        await app.close();
      }
    });

    it('an object info gets the state the store returned, as in passport-oauth2', async () => {
      const store = {
        store: (_req: unknown, cb: (e: null, s: string) => void) => cb(null, 'st'),
        verify: (_req: unknown, _s: string, cb: (e: null, ok: boolean, info: unknown) => void) =>
          cb(null, true, { returnTo: '/basket' }),
      } as unknown as OAuth2Strategy.StateStore;
      const strategy = new KudosStrategy(options({ store }), (_a, _r, profile, done) =>
        done(null, { id: profile.id }, { message: 'welcome' }),
      );
      expect(await runStrategy(strategy, { url: '/cb?code=c&state=st' })).toMatchObject({
        action: 'success',
        info: { message: 'welcome', state: { returnTo: '/basket' } },
      });
    });
  },
);

describe('8. customHeaders', () => {
  it('are sent on the token request and on refresh; the form headers stay the strategy’s', async () => {
    const strategy = new KudosStrategy(
      options({ customHeaders: { 'User-Agent': 'shop/1.0', 'X-Trace': 7, 'content-type': 'text/evil' } }),
      recordProfile,
    );
    await runStrategy(strategy, { url: '/cb?code=c' });
    await strategy.refresh('rt-1');
    for (const request of tokens.requests) {
      expect(request.headers['user-agent']).toBe('shop/1.0');
      expect(request.headers['x-trace']).toBe('7');
      expect(request.contentType).toBe('application/x-www-form-urlencoded');
    }
    expect(tokens.requests).toHaveLength(2);
  });

  it('a header node:http would refuse is a TypeError at construction, naming the header only', () => {
    expect(
      () => new KudosStrategy(options({ customHeaders: { 'X-Bad': 'a\r\nInjected: 1' } }), recordProfile),
    ).toThrow('KudosStrategy option "customHeaders" has an invalid header "X-Bad"');
    expect(() => new KudosStrategy(options({ customHeaders: 'x' as never }), recordProfile)).toThrow(
      TypeError,
    );
  });
});

describe('9. fetchProfile against a local profile operation', () => {
  it('asks {baseURL}/users/profile with the access token; emails and wallets join the profile', async () => {
    const http = await import('node:http');
    const seen: string[] = [];
    const api = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          user: 'alice-example',
          displayName: 'Alice',
          avatar: 'https://a.example/x.png',
          wallet: 'cosmos1abc',
          cosmosWallet: 'cosmos1abc',
          email: 'alice@example.com',
        }),
      );
    });
    const listening = await listenLocal(api);
    const profileURL = `${listening.url}/users/profile`;
    try {
      const strategy = new KudosStrategy(options({ fetchProfile: true, profileURL }), recordProfile);
      const outcome = await runStrategy(strategy, { url: '/cb?code=c' });
      expect(seen).toEqual([`GET /users/profile Bearer ${tokenResponse().access_token}`]);
      expect(outcome).toMatchObject({
        action: 'success',
        user: {
          profile: {
            id: 'alice-example',
            emails: [{ value: 'alice@example.com' }],
            photos: [{ value: 'https://a.example/x.png' }],
            _json: { wallet: 'cosmos1abc', cosmosWallet: 'cosmos1abc' },
          },
        },
      });
    } finally {
      await listening.close();
    }
  });

  it('a refusal of the profile operation is a KudosApiError with the service code', async () => {
    const http = await import('node:http');
    const api = http.createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'text/html' });
      res.end('LOGIN_NEEDED');
    });
    const listening = await listenLocal(api);
    const profileURL = `${listening.url}/users/profile`;
    try {
      const outcome = await runStrategy(
        new KudosStrategy(options({ fetchProfile: true, profileURL }), recordProfile),
        { url: '/cb?code=c' },
      );
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(KudosApiError);
      expect(error).toMatchObject({ code: 'LOGIN_NEEDED', httpStatus: 401 });
    } finally {
      await listening.close();
    }
  });

  it('needs baseURL or profileURL', () => {
    expect(
      () =>
        new KudosStrategy(
          {
            clientID: 'c',
            clientSecret: 's',
            callbackURL: '/cb',
            authURL: 'https://a',
            tokenURL: 'https://t/x',
            fetchProfile: true,
          },
          recordProfile,
        ),
    ).toThrow('KudosStrategy option "fetchProfile" needs the "baseURL" option (or "profileURL")');
  });
});

describe('a login in a browser-like client keeps working (sessions, state on)', () => {
  it.each(EXPRESS_FLAVORS)('%s', async (flavor) => {
    const strategy = new KudosStrategy(
      options({ state: true, callbackURL: '/cb' }),
      (_a, _r, profile, done) => done(null, { id: profile.id }),
    );
    const app = await startExpress(flavor, strategy);
    const client = new CookieClient();
    try {
      const state = locationOf(await client.get(`${app.url}/login`)).searchParams.get('state');
      const res = await client.get(`${app.url}/cb?code=c&state=${state}`);
      expect(await res.json()).toMatchObject({ user: { id: 'alice-example' } });
    } finally {
      await app.close();
    }
  });
});

describe.each(EXPRESS_FLAVORS)('2-5, 8 through a real app (%s)', (flavor) => {
  class Hooked extends KudosStrategy {
    override userProfile(accessToken: string, done: (err?: unknown, profile?: unknown) => void): void {
      super.userProfile(accessToken, (err, profile) =>
        done(err, { ...(profile as KudosProfile), hooked: true }),
      );
    }
    override tokenParams(): object {
      return { max_age: 60, resource: ['a', 'b'] };
    }
    override parseErrorResponse(body: string, status: number): Error | null {
      return Object.assign(new Error(`mapped ${status} ${body}`), { status: 418 });
    }
  }

  async function login(extra: Partial<KudosStrategyOptions>): Promise<unknown> {
    const strategy = new Hooked(
      options({ callbackURL: '/cb', customHeaders: { 'X-App': 'shop' }, ...extra }),
      recordProfile,
    );
    const app = await startExpress(flavor, strategy);
    try {
      const res = await fetch(`${app.url}/cb?code=c0de`);
      return { status: res.status, body: await res.json() };
    } finally {
      await app.close();
    }
  }

  it('userProfile override, tokenParams and customHeaders all reach the login', async () => {
    expect(await login({})).toMatchObject({
      status: 200,
      body: { user: { profile: { id: 'alice-example', hooked: true } } },
    });
    const sent = tokens.requests[0];
    expect(sent?.headers['x-app']).toBe('shop');
    expect(new URLSearchParams(sent?.raw).getAll('resource')).toEqual(['a', 'b']);
    expect(sent?.form.max_age).toBe('60');
  });

  it('skipUserProfile skips the override; verify gets the Kudos profile', async () => {
    const result = (await login({ skipUserProfile: true })) as { body: { user: { profile: object } } };
    expect(result.body.user.profile).toMatchObject({ provider: 'kudos', id: 'alice-example' });
    expect(result.body.user.profile).not.toHaveProperty('hooked');
  });

  it("parseErrorResponse's error is what the app's error handler gets", async () => {
    tokens.answer = { kind: 'text', status: 400, body: 'INVALID_CLIENT_CRED' };
    expect(await login({})).toMatchObject({
      status: 418,
      body: { message: 'mapped 400 INVALID_CLIENT_CRED' },
    });
  });
});

/** Starts a login on `session`, then answers the callback with the state the redirect carried. */
async function signIn(strategy: KudosStrategy, tamper: () => void) {
  const session: Record<string, unknown> = {};
  const start = await runStrategy(strategy, { url: '/login', session } as never);
  if (start.action !== 'redirect') throw new Error(`the start ended with ${start.action}`);
  const state = new URL(start.url).searchParams.get('state');
  tamper();
  return runStrategy(strategy, { url: `/cb?code=c0de&state=${state}`, session } as never);
}

// KudosStrategy reads nothing private of passport-oauth2 and shows nothing of its own beyond its
// documented methods: what a passport-oauth2 1.x release may rename cannot break a login.
describe('no private surface, either way', () => {
  it.each([
    ['state: true', {}],
    ['store: true (untyped, as passport-oauth2 takes it)', { store: true as never }],
    ['state and PKCE', { pkce: true }],
  ] as [string, Partial<KudosStrategyOptions>][])(
    'verifies the callback with the store it handed passport-oauth2 (%s), not its private field',
    async (_name, extra) => {
      const strategy = new KudosStrategy(options({ state: true, ...extra }), recordProfile);
      // Whatever passport-oauth2 keeps under its private name after the redirect is not read.
      const outcome = await signIn(strategy, () => {
        (strategy as unknown as Record<string, unknown>)._stateStore = undefined;
      });
      expect(outcome).toMatchObject({ action: 'success', user: { profile: { id: 'alice-example' } } });
      const verifier = tokens.requests.at(-1)?.form.code_verifier;
      if (extra.pkce) expect(verifier).toMatch(/^[\w-]{43}$/);
      else expect(verifier).toBeUndefined();
    },
  );

  it('keeps the app state object with store: true and hands it back, as passport-oauth2 does', async () => {
    const strategy = new KudosStrategy(options({ store: true as never }), recordProfile);
    const session: Record<string, unknown> = {};
    await runStrategy(
      strategy,
      { url: '/login', session } as never,
      { state: { returnTo: '/tips' } } as never,
    );
    const saved = session['oauth2:kudos.example'] as { state: { handle: string } };
    expect(saved.state).toEqual({ handle: expect.stringMatching(/^.{24}$/), state: { returnTo: '/tips' } });
    const outcome = await runStrategy(strategy, {
      url: `/cb?code=c0de&state=${saved.state.handle}`,
      session,
    } as never);
    expect(outcome).toMatchObject({ action: 'success', info: { state: { returnTo: '/tips' } } });
  });

  it('keeps passport-oauth2 words for a state that does not match', async () => {
    const strategy = new KudosStrategy(options({ state: true }), recordProfile);
    const session: Record<string, unknown> = {};
    await runStrategy(strategy, { url: '/login', session } as never);
    expect(session['oauth2:kudos.example']).toEqual({ state: expect.stringMatching(/^.{24}$/) });
    const outcome = await runStrategy(strategy, { url: '/cb?code=c0de&state=forged', session } as never);
    expect(outcome).toEqual({
      action: 'fail',
      challenge: { message: 'Invalid authorization request state.' },
      status: 403,
    });
    expect(session['oauth2:kudos.example']).toBeUndefined();
  });

  it('has no own fields beyond passport-oauth2 own, and no internal methods', () => {
    const strategy = new KudosStrategy(options({ state: true }), recordProfile);
    const plain = new OAuth2Strategy(
      {
        authorizationURL: 'https://kudos.example/a',
        tokenURL: 'https://kudos.example/t',
        clientID: 'c',
        clientSecret: 's',
      },
      () => undefined,
    );
    expect(Object.keys(strategy).filter((key) => !(key in plain))).toEqual([]);
    const methods = Object.getOwnPropertyNames(KudosStrategy.prototype).filter((name) =>
      name.startsWith('_'),
    );
    expect(methods).toEqual([]);
    // passport-oauth2-refresh's convention stays readable, out of sight.
    const refresh = strategy as unknown as { _refreshURL: string };
    expect(refresh._refreshURL).toBe(`${tokens.baseURL}/oauth/access_token`);
    // A subclass (or passport-oauth2-refresh's user) may still set it, in strict mode too.
    refresh._refreshURL = 'https://kudos.example/refresh';
    expect(refresh._refreshURL).toBe('https://kudos.example/refresh');
  });

  it('publishes no underscored member in its types', () => {
    for (const flavor of ['esm', 'cjs']) {
      const types = readFileSync(`dist/${flavor}/strategy/strategy.d.ts`, 'utf8');
      // A member (field or method) whose name starts with an underscore.
      expect(types).not.toMatch(/^\s*(readonly\s+)?_\w+\??[(:]/m);
      expect(types).toMatch(/^\s*refresh\(/m);
    }
  });
});
