import type OAuth2Strategy from 'passport-oauth2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KudosStrategy, type KudosStrategyOptionsBase } from '../../src/index.js';
import { runStrategy } from '../helpers/run-strategy.js';
import { type FakeTokenServer, startTokenServer, tokenResponse } from '../helpers/token-server.js';

// One test per passport-oauth2 behaviour that src/callback/exchange.ts reproduces (its items 1-6).
describe('the callback reproduces passport-oauth2, item by item', () => {
  let tokens: FakeTokenServer;
  beforeAll(async () => {
    tokens = await startTokenServer();
  });
  afterEach(() => {
    tokens.requests.length = 0;
  });
  afterAll(() => tokens.close());

  function strategy(
    store: OAuth2Strategy.StateStore,
    verify: (...args: never[]) => void = (
      _a: string,
      _r: string,
      p: { id: string },
      done: (e: unknown, u: unknown) => void,
    ) => done(null, { id: p.id }),
    extra: Partial<KudosStrategyOptionsBase> & { passReqToCallback?: boolean } = {},
  ): KudosStrategy {
    return new KudosStrategy(
      {
        clientID: 'c',
        clientSecret: 's',
        callbackURL: 'http://app.test/cb',
        authURL: tokens.baseURL,
        baseURL: tokens.baseURL,
        store,
        ...extra,
      } as never,
      verify as never,
    );
  }
  const storeOk = (ok: unknown = true, info: unknown = { returnTo: '/x' }): OAuth2Strategy.StateStore =>
    ({
      store: (_req: unknown, cb: (err: null, state: string) => void) => cb(null, 's'),
      verify: (_req: unknown, _state: string, cb: (err: null, ok: unknown, info: unknown) => void) =>
        cb(null, ok, info),
    }) as unknown as OAuth2Strategy.StateStore;
  const callback = { url: '/cb?code=the-code&state=st' };

  it('1. calls a 4-argument store verify with meta, a 3-argument one without', async () => {
    const seen: unknown[][] = [];
    const four = {
      store: () => undefined,
      verify(_req: unknown, state: string, meta: unknown, cb: (e: null, ok: boolean) => void) {
        seen.push([state, meta]);
        cb(null, true);
      },
    } as unknown as OAuth2Strategy.StateStore;
    expect((await runStrategy(strategy(four), callback)).action).toBe('success');
    expect(seen).toEqual([
      [
        'st',
        {
          authorizationURL: `${tokens.baseURL}/in/oauth/`,
          tokenURL: `${tokens.baseURL}/oauth/access_token`,
          clientID: 'c',
          callbackURL: 'http://app.test/cb',
        },
      ],
    ]);
    const three = {
      store: () => undefined,
      verify(_req: unknown, state: string, cb: (e: null, ok: boolean) => void) {
        seen.push([state, cb.length]);
        cb(null, true);
      },
    } as unknown as OAuth2Strategy.StateStore;
    expect((await runStrategy(strategy(three), callback)).action).toBe('success');
    expect(seen[1]?.[0]).toBe('st');
  });

  it('2. a state the store rejects fails with 403 and its info; a store error is error()', async () => {
    expect(await runStrategy(strategy(storeOk(false, { message: 'Invalid state' })), callback)).toEqual({
      action: 'fail',
      challenge: { message: 'Invalid state' },
      status: 403,
    });
    const broken = {
      store: () => undefined,
      verify: (_r: unknown, _s: string, cb: (e: Error) => void) => cb(new Error('session store down')),
    } as unknown as OAuth2Strategy.StateStore;
    const outcome = await runStrategy(strategy(broken), callback);
    expect(outcome).toMatchObject({ action: 'error', error: { message: 'session store down' } });
    expect(tokens.requests).toHaveLength(0);
  });

  it('3. sends a verifier the store hands back as code_verifier (PKCE)', async () => {
    await runStrategy(strategy(storeOk('pkce-verifier-0123456789')), callback);
    expect(tokens.requests[0]?.form).toMatchObject({
      code_verifier: 'pkce-verifier-0123456789',
      code: 'the-code',
    });
    await runStrategy(strategy(storeOk(true)), callback);
    expect(tokens.requests[1]?.form.code_verifier).toBeUndefined();
  });

  it('4. adds tokenParams(options) to the token request, encoded as node-oauth encodes them', async () => {
    const s = strategy(storeOk());
    s.tokenParams = () => ({ audience: 'shop', max_age: 42, list: ['a', 'b'] });
    await runStrategy(s, callback);
    expect(tokens.requests[0]?.form).toMatchObject({
      audience: 'shop',
      max_age: '42',
      grant_type: 'authorization_code',
      redirect_uri: 'http://app.test/cb',
    });
    expect(new URLSearchParams(tokens.requests[0]?.raw).getAll('list')).toEqual(['a', 'b']);
  });

  it.each([
    [4, false, ['access', 'refresh', 'profile']],
    [5, false, ['access', 'refresh', 'params', 'profile']],
    [5, true, ['req', 'access', 'refresh', 'profile']],
    [6, true, ['req', 'access', 'refresh', 'params', 'profile']],
  ])('5. a verify of arity %i (passReqToCallback %s) gets %j', async (arity, passReq, expected) => {
    let got: unknown[] = [];
    const record = (...args: unknown[]) => {
      got = args.slice(0, -1);
      (args.at(-1) as (e: null, u: object) => void)(null, { id: 'x' });
    };
    const verify = {
      4: (a: unknown, b: unknown, c: unknown, d: unknown) => record(a, b, c, d),
      5: (a: unknown, b: unknown, c: unknown, d: unknown, e: unknown) => record(a, b, c, d, e),
      6: (a: unknown, b: unknown, c: unknown, d: unknown, e: unknown, f: unknown) => record(a, b, c, d, e, f),
    }[arity] as never;
    await runStrategy(strategy(storeOk(), verify, { passReqToCallback: passReq }), callback);
    const names = got.map((value) => {
      if (value === tokenResponse().access_token) return 'access';
      if (value === tokenResponse().refresh_token) return 'refresh';
      if (typeof value === 'object' && value !== null && 'provider' in value) return 'profile';
      if (typeof value === 'object' && value !== null && 'access_token' in value) return 'params';
      return 'req';
    });
    expect(names).toEqual(expected);
  });

  it('6. done(err) is error(), done(null, false, info) is fail(info), success gets info.state', async () => {
    const err = new Error('no such account');
    const failing = (_a: string, _r: string, _p: unknown, done: (e: unknown) => void) => done(err);
    expect(await runStrategy(strategy(storeOk(), failing as never), callback)).toEqual({
      action: 'error',
      error: err,
    });
    const refusing = (_a: string, _r: string, _p: unknown, done: (e: null, u: false, i: object) => void) =>
      done(null, false, { message: 'banned' });
    expect(await runStrategy(strategy(storeOk(), refusing as never), callback)).toMatchObject({
      action: 'fail',
      challenge: { message: 'banned' },
    });
    const welcoming = (
      _a: string,
      _r: string,
      p: { id: string },
      done: (e: null, u: object, i: object) => void,
    ) => done(null, { id: p.id }, { note: 'hi' });
    expect(
      await runStrategy(strategy(storeOk(true, { returnTo: '/basket' }), welcoming as never), callback),
    ).toEqual({
      action: 'success',
      user: { id: 'alice-example' },
      info: { note: 'hi', state: { returnTo: '/basket' } },
    });
  });
});
