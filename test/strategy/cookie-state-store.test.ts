import { describe, expect, it } from 'vitest';
import { type KudosCookieStateRequest, KudosCookieStateStore } from '../../src/index.js';

// The state cookie's own rules, in process: what it sets, what it accepts back, what it refuses.
// test/integration/cookie-state.test.ts signs in through it against the emulator.

const SECRET = 'cookie-state-test-secret-0123456789';

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

function start(store: KudosCookieStateStore, verifier?: string, state?: unknown, extra = {}) {
  const { req, setCookies } = exchange(undefined, extra);
  let handle: string | undefined;
  store.store(req, verifier, state, {}, (err, h) => {
    expect(err).toBeNull();
    handle = h;
  });
  const [setCookie] = setCookies();
  const value = /^kudos_oauth_state=([^;]*);/.exec(setCookie ?? '')?.[1] ?? '';
  return { handle: handle as string, setCookie: setCookie as string, cookie: `kudos_oauth_state=${value}` };
}

function verify(store: KudosCookieStateStore, cookie: string | undefined, state: unknown) {
  const { req, setCookies } = exchange(cookie);
  let answer: unknown[] = [];
  store.verify(req, state, (...args) => {
    answer = args;
  });
  return { answer, setCookies: setCookies() };
}

describe('KudosCookieStateStore', () => {
  it('sets an HttpOnly, SameSite=Lax cookie of 10 minutes, Secure over HTTPS, and answers a random handle', () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const plain = start(store);
    expect(plain.handle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(plain.setCookie).toMatch(
      /^kudos_oauth_state=[A-Za-z0-9_-]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    expect(start(store, undefined, undefined, { secure: true }).setCookie).toMatch(/; Secure$/);
    expect(start(store, undefined, undefined, { protocol: 'https' }).setCookie).toMatch(/; Secure$/);
    expect(start(store).handle).not.toBe(plain.handle);
    // Nothing readable in it: the handle and the app's state are encrypted.
    const withState = start(store, 'a-pkce-verifier', { returnTo: '/secret-place' });
    expect(withState.cookie).not.toContain(withState.handle);
    expect(Buffer.from(withState.cookie.split('=')[1] ?? '', 'base64url').toString('latin1')).not.toContain(
      'secret-place',
    );
  });

  it('accepts its own handle once, with the PKCE verifier and the app’s state, and clears the cookie', () => {
    const store = new KudosCookieStateStore({ secret: SECRET });
    const started = start(store, 'the-pkce-verifier', { returnTo: '/profile' });
    const { answer, setCookies } = verify(store, `other=1; ${started.cookie}; more=2`, started.handle);
    expect(answer).toEqual([null, 'the-pkce-verifier', { returnTo: '/profile' }]);
    expect(setCookies).toEqual(['kudos_oauth_state=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
    const plain = start(store);
    expect(verify(store, plain.cookie, plain.handle).answer).toEqual([null, true, undefined]);
  });

  it('refuses a missing, foreign, edited, expired or other-handle state with passport-oauth2’s words', () => {
    let now = 1_000_000;
    const store = new KudosCookieStateStore({ secret: SECRET, now: () => now });
    const started = start(store);
    const invalid = [null, false, { message: 'Invalid authorization request state.' }];
    expect(verify(store, undefined, started.handle).answer).toEqual([
      null,
      false,
      { message: 'Unable to verify authorization request state.' },
    ]);
    expect(verify(store, started.cookie, 'another-handle').answer).toEqual(invalid);
    expect(verify(store, started.cookie, undefined).answer).toEqual(invalid);
    const edited = started.cookie.slice(0, -3) + (started.cookie.endsWith('AAA') ? 'BBB' : 'AAA');
    expect(verify(store, edited, started.handle).answer).toEqual(invalid);
    const other = new KudosCookieStateStore({ secret: 'another-apps-secret-0123456789' });
    expect(verify(other, started.cookie, started.handle).answer).toEqual(invalid);
    expect(verify(store, 'kudos_oauth_state=garbage', started.handle).answer).toEqual(invalid);
    now += 10 * 60 * 1000;
    expect(verify(store, started.cookie, started.handle).answer).toEqual(invalid);
  });

  it('opens a cookie of a rotated-out secret while encrypting with the first', () => {
    const before = new KudosCookieStateStore({ secret: 'the-old-secret-0123456789' });
    const after = new KudosCookieStateStore({
      secret: ['the-new-secret-0123456789', 'the-old-secret-0123456789'],
    });
    const started = start(before);
    expect(verify(after, started.cookie, started.handle).answer.slice(0, 2)).toEqual([null, true]);
    const fresh = start(after);
    expect(verify(before, fresh.cookie, fresh.handle).answer[1]).toBe(false);
  });

  it('keeps the other cookies a response sets, and replaces only its own', () => {
    const store = new KudosCookieStateStore({ secret: SECRET, name: 'st', maxAgeMs: 60_000, path: '/auth' });
    const { req, res, setCookies } = exchange();
    res.setHeader('Set-Cookie', ['sid=abc; Path=/', 'st=old; Path=/auth']);
    store.store(req, undefined, undefined, {}, () => undefined);
    const cookies = setCookies();
    expect(cookies[0]).toBe('sid=abc; Path=/');
    expect(cookies).toHaveLength(2);
    expect(cookies[1]).toMatch(/^st=[^;]+; Max-Age=60; Path=\/auth; HttpOnly; SameSite=Lax$/);
  });

  it('refuses options it cannot use, and a start without a response, with a TypeError naming them', () => {
    const make = (options: object) => () => new KudosCookieStateStore(options as never);
    expect(make({})).toThrow(/requires "secret": a string \(or strings\) of at least 16 characters/);
    expect(make({ secret: 'short' })).toThrow(/at least 16 characters/);
    expect(make({ secret: SECRET, name: 'a b' })).toThrow(/option "name"/);
    expect(make({ secret: SECRET, maxAgeMs: 10 })).toThrow(/option "maxAgeMs"/);
    expect(make({ secret: SECRET, secure: 'yes' })).toThrow(/option "secure"/);
    expect(make({ secret: SECRET, path: 'auth' })).toThrow(/option "path"/);
    const store = new KudosCookieStateStore({ secret: SECRET });
    let error: unknown;
    store.store({ headers: {} }, undefined, undefined, {}, (err) => {
      error = err;
    });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/no response to set its cookie on: .*"response" option/);
    let tooLarge: unknown;
    store.store(exchange().req, undefined, { blob: 'x'.repeat(5000) }, {}, (err) => {
      tooLarge = err;
    });
    expect((tooLarge as Error).message).toMatch(/too large for a cookie/);
  });

  it('takes its response where the option says (Fastify keeps the reply apart from the request)', () => {
    const { res, setCookies } = exchange();
    const replies = new WeakMap<object, typeof res>();
    const request = { headers: {} };
    replies.set(request, res);
    const store = new KudosCookieStateStore({
      secret: SECRET,
      response: (req) => replies.get(req) as never,
    });
    store.store(request, undefined, undefined, {}, () => undefined);
    expect(setCookies()[0]).toMatch(/^kudos_oauth_state=/);
  });
});
