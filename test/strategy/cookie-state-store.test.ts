import { describe, expect, it } from 'vitest';
import {
  type KudosCookieStateRequest,
  KudosCookieStateStore,
  type KudosUsedStates,
} from '../../src/index.js';

// The state cookie's own rules, in process: what it sets, what it accepts back, what it refuses.
// test/integration/cookie-state.test.ts signs in through it against the emulator, behind a proxy too.

const SECRET = 'cookie-state-test-secret-0123456789-abcdef';
const HTTP = { callbackURL: 'http://localhost:3000/auth/kudos/callback' };
const HTTPS = { callbackURL: 'https://shop.example/auth/kudos/callback' };

/** A request and its response as Express hands them over: headers in, Set-Cookie out. */
function exchange(cookie?: string, extra: Partial<KudosCookieStateRequest> = {}) {
  const headers = new Map<string, string | string[]>();
  const res = {
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: string | string[]) => {
      headers.set(name.toLowerCase(), value);
      return res;
    },
  };
  const req: KudosCookieStateRequest = {
    headers: cookie === undefined ? {} : { cookie },
    res: res as unknown as KudosCookieStateRequest['res'],
    ...extra,
  };
  const setCookies = () => [headers.get('set-cookie') ?? []].flat();
  return { req, res, setCookies };
}

/** The name=value of the last Set-Cookie that sets a value (not a clearing one). */
function jar(setCookies: string[]): string {
  const set = setCookies.filter((c) => !/^[^=]+=;/.test(c)).at(-1) ?? '';
  return set.slice(0, set.indexOf(';'));
}

function start(
  store: KudosCookieStateStore,
  {
    verifier,
    state,
    meta = HTTP,
    cookie,
    extra = {},
  }: { verifier?: string; state?: unknown; meta?: object; cookie?: string; extra?: object } = {},
) {
  const { req, setCookies } = exchange(cookie, extra);
  let handle: string | undefined;
  store.store(req, verifier, state, meta, (err, h) => {
    expect(err).toBeNull();
    handle = h;
  });
  return { handle: handle as string, setCookies: setCookies(), cookie: jar(setCookies()) };
}

/** The callback: resolves with what the store called back, and what it set. */
function verify(
  store: KudosCookieStateStore,
  cookie: string | undefined,
  state: unknown,
  meta: object = HTTP,
) {
  const { req, setCookies } = exchange(cookie);
  return new Promise<{ answer: unknown[]; setCookies: string[] }>((resolve) => {
    store.verify(req, state, meta, (...args) => resolve({ answer: args, setCookies: setCookies() }));
  });
}

const INVALID = [null, false, { message: 'Invalid authorization request state.' }];
const MISSING = [null, false, { message: 'Unable to verify authorization request state.' }];

describe('KudosCookieStateStore', () => {
  it('sets an HttpOnly, SameSite=Lax cookie of 10 minutes per sign-in, named after its state', () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const plain = start(store);
    expect(plain.handle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(plain.setCookies).toEqual([
      expect.stringMatching(
        new RegExp(
          `^kudos_oauth_state\\.${plain.handle.slice(0, 16)}=[A-Za-z0-9_-]+; Max-Age=600; Path=/; HttpOnly; SameSite=Lax$`,
        ),
      ),
    ]);
    expect(start(store).handle).not.toBe(plain.handle);
    // Nothing readable in it: the handle and the app's state are encrypted.
    const withState = start(store, { verifier: 'a-pkce-verifier', state: { returnTo: '/secret-place' } });
    expect(withState.cookie.split('=')[1]).not.toContain(withState.handle);
    expect(Buffer.from(withState.cookie.split('=')[1] ?? '', 'base64url').toString('latin1')).not.toContain(
      'secret-place',
    );
  });

  it('an https callback URL (the strategy’s proxy: true resolves it so) makes it Secure and __Host-', () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const secure = start(store, { meta: HTTPS });
    expect(secure.setCookies[0]).toMatch(
      /^__Host-kudos_oauth_state\.[A-Za-z0-9_-]{16}=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
    );
    expect(secure.setCookies[0]).not.toMatch(/Domain=/i);
    // Without a callback URL in meta (another caller), the request's own scheme decides.
    expect(start(store, { meta: {}, extra: { secure: true } }).setCookies[0]).toMatch(/^__Host-.*; Secure$/);
    // Another path cannot take the prefix; the cookie is still Secure.
    const pathed = new KudosCookieStateStore({ secret: SECRET, path: '/auth' });
    expect(start(pathed, { meta: HTTPS }).setCookies[0]).toMatch(
      /^kudos_oauth_state\.[^;]+; Max-Age=600; Path=\/auth; HttpOnly; SameSite=Lax; Secure$/,
    );
  });

  it('over https accepts only the __Host- cookie: a copy planted without the prefix is refused', async () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const secure = start(store, { meta: HTTPS });
    const value = secure.cookie.slice(secure.cookie.indexOf('=') + 1);
    const planted = `kudos_oauth_state.${secure.handle.slice(0, 16)}=${value}`;
    expect((await verify(store, planted, secure.handle, HTTPS)).answer).toEqual(MISSING);
    // Over plain HTTP the prefixed copy is not the plain one either: it was issued for https.
    expect((await verify(store, planted, secure.handle, HTTP)).answer).toEqual(INVALID);
    expect((await verify(store, secure.cookie, secure.handle, HTTPS)).answer).toEqual([
      null,
      true,
      undefined,
    ]);
  });

  it('accepts its own state once, with the PKCE verifier and the app’s state, and clears that cookie only', async () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const started = start(store, { verifier: 'the-pkce-verifier', state: { returnTo: '/profile' } });
    const other = start(store);
    const { answer, setCookies } = await verify(
      store,
      `x=1; ${started.cookie}; ${other.cookie}; more=2`,
      started.handle,
    );
    expect(answer).toEqual([null, 'the-pkce-verifier', { returnTo: '/profile' }]);
    expect(setCookies).toEqual([
      `${started.cookie.split('=')[0]}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`,
    ]);
    expect((await verify(store, other.cookie, other.handle)).answer).toEqual([null, true, undefined]);
  });

  it('two sign-ins in two tabs both complete, in either order', async () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const first = start(store);
    const second = start(store, { cookie: first.cookie });
    expect(second.setCookies).toHaveLength(1); // the first tab's cookie stays
    const both = `${first.cookie}; ${second.cookie}`;
    expect((await verify(store, both, second.handle)).answer).toEqual([null, true, undefined]);
    expect((await verify(store, first.cookie, first.handle)).answer).toEqual([null, true, undefined]);
  });

  it('a stray callback (a state of no sign-in of this browser) clears nothing and fails', async () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const mine = start(store);
    for (const stray of ['A'.repeat(32), 'made-up', undefined, '']) {
      const { answer, setCookies } = await verify(store, mine.cookie, stray);
      expect(answer).toEqual(MISSING);
      expect(setCookies).toEqual([]);
    }
    expect((await verify(store, mine.cookie, mine.handle)).answer).toEqual([null, true, undefined]);
  });

  it(`keeps at most 5 sign-ins under way in one browser: a sixth start clears the oldest`, async () => {
    let now = 1_000_000;
    const store = new KudosCookieStateStore({ secret: SECRET, now: () => now });
    const starts: Array<ReturnType<typeof start>> = [];
    for (let i = 0; i < 6; i++) {
      now += 1000;
      starts.push(start(store, { cookie: starts.map((s) => s.cookie).join('; ') }));
    }
    const sixth = starts[5] as ReturnType<typeof start>;
    const oldest = starts[0] as ReturnType<typeof start>;
    expect(sixth.setCookies).toEqual([
      `${oldest.cookie.split('=')[0]}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`,
      expect.stringMatching(/^kudos_oauth_state\./),
    ]);
    // What a browser sends afterwards stays within its limits: five cookies of about 200 bytes.
    const sent = starts
      .slice(1)
      .map((s) => s.cookie)
      .join('; ');
    expect(sent.length).toBeLessThan(1500);
  });

  it('refuses a replayed state within its lifetime, even with the cookie sent again', async () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const started = start(store);
    expect((await verify(store, started.cookie, started.handle)).answer).toEqual([null, true, undefined]);
    for (let i = 0; i < 3; i++)
      expect((await verify(store, started.cookie, started.handle)).answer).toEqual(INVALID);
  });

  it('asks usedStates when given (several instances share one)', async () => {
    const used = new Set<string>();
    const shared: KudosUsedStates = {
      markUsed: async (state) => !used.has(state) && Boolean(used.add(state)),
    };
    const a = new KudosCookieStateStore({ secret: SECRET, usedStates: shared });
    const b = new KudosCookieStateStore({ secret: SECRET, usedStates: shared });
    const started = start(a);
    expect((await verify(a, started.cookie, started.handle)).answer[1]).toBe(true);
    expect((await verify(b, started.cookie, started.handle)).answer).toEqual(INVALID);
    const failing = new KudosCookieStateStore({
      secret: SECRET,
      usedStates: { markUsed: () => Promise.reject(new Error('redis down')) },
    });
    const again = start(failing);
    const { answer } = await verify(failing, again.cookie, again.handle);
    expect((answer[0] as Error).message).toBe('redis down');
  });

  it('refuses a missing, foreign, edited, expired or other-handle state with passport-oauth2’s words', async () => {
    let now = 1_000_000;
    const store = new KudosCookieStateStore({ secret: SECRET, now: () => now });
    const started = start(store);
    const name = started.cookie.split('=')[0];
    expect((await verify(store, undefined, started.handle)).answer).toEqual(MISSING);
    const edited = started.cookie.slice(0, -3) + (started.cookie.endsWith('AAA') ? 'BBB' : 'AAA');
    expect((await verify(store, edited, started.handle)).answer).toEqual(INVALID);
    const other = new KudosCookieStateStore({ secret: 'another-apps-secret-0123456789-abcdefgh' });
    expect((await verify(other, started.cookie, started.handle)).answer).toEqual(INVALID);
    expect((await verify(store, `${name}=garbage`, started.handle)).answer).toEqual(INVALID);
    // Another state that happens to share the cookie's first 16 characters is not it.
    const lookalike = started.handle.slice(0, 16) + 'x'.repeat(16);
    expect((await verify(store, started.cookie, lookalike)).answer).toEqual(INVALID);
    now += 10 * 60 * 1000;
    const late = start(store);
    now += 10 * 60 * 1000;
    expect((await verify(store, late.cookie, late.handle)).answer).toEqual(INVALID);
  });

  it('opens a cookie of a rotated-out secret while encrypting with the first', async () => {
    const oldSecret = 'the-old-secret-0123456789-abcdefghijkl';
    const before = new KudosCookieStateStore({ secret: oldSecret });
    const after = new KudosCookieStateStore({
      secret: ['the-new-secret-0123456789-abcdefghijkl', oldSecret],
    });
    const started = start(before);
    expect((await verify(after, started.cookie, started.handle)).answer.slice(0, 2)).toEqual([null, true]);
    const fresh = start(after);
    expect((await verify(before, fresh.cookie, fresh.handle)).answer[1]).toBe(false);
  });

  it('keeps the other cookies a response sets', () => {
    const store = new KudosCookieStateStore({ secret: SECRET, name: 'st', maxAgeMs: 60_000, path: '/auth' });
    const { req, res, setCookies } = exchange();
    res.setHeader('Set-Cookie', ['sid=abc; Path=/']);
    store.store(req, undefined, undefined, HTTP, () => undefined);
    const cookies = setCookies();
    expect(cookies[0]).toBe('sid=abc; Path=/');
    expect(cookies).toHaveLength(2);
    expect(cookies[1]).toMatch(
      /^st\.[A-Za-z0-9_-]{16}=[^;]+; Max-Age=60; Path=\/auth; HttpOnly; SameSite=Lax$/,
    );
  });

  it('refuses options it cannot use, and a start without a response, with a TypeError naming them', () => {
    const make = (options: object) => () => new KudosCookieStateStore(options as never);
    expect(make({})).toThrow(/requires "secret": a string \(or strings\) of at least 32 characters/);
    expect(make({ secret: 'x'.repeat(31) })).toThrow(TypeError);
    expect(make({ secret: 'x'.repeat(31) })).toThrow(/"secret".*at least 32 characters/);
    expect(make({ secret: [SECRET, 'short'] })).toThrow(/at least 32 characters/);
    expect(make({ secret: 'x'.repeat(32) })).not.toThrow();
    expect(make({ secret: SECRET, name: 'a b' })).toThrow(/option "name"/);
    expect(make({ secret: SECRET, name: '__Host-st' })).toThrow(/option "name"/);
    expect(make({ secret: SECRET, maxAgeMs: 10 })).toThrow(/option "maxAgeMs"/);
    expect(make({ secret: SECRET, secure: 'yes' })).toThrow(/option "secure"/);
    expect(make({ secret: SECRET, path: 'auth' })).toThrow(/option "path"/);
    expect(make({ secret: SECRET, usedStates: {} })).toThrow(/option "usedStates"/);
    const store = new KudosCookieStateStore({ secret: SECRET });
    let error: unknown;
    store.store({ headers: {} }, undefined, undefined, HTTP, (err) => {
      error = err;
    });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/no response to set its cookie on: .*"response" option/);
    let tooLarge: unknown;
    store.store(exchange().req, undefined, { blob: 'x'.repeat(5000) }, HTTP, (err) => {
      tooLarge = err;
    });
    expect((tooLarge as Error).message).toMatch(/too large for a cookie/);
  });

  it('takes its response where the option says (Fastify keeps the reply apart from the request)', () => {
    const { res, setCookies } = exchange();
    const replies = new WeakMap<object, typeof res>();
    const request = { headers: {} };
    replies.set(request, res);
    const store = new KudosCookieStateStore({ secret: SECRET, response: (req) => replies.get(req) as never });
    store.store(request, undefined, undefined, HTTP, () => undefined);
    expect(setCookies()[0]).toMatch(/^kudos_oauth_state\./);
  });
});
