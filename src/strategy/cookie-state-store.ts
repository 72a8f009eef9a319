// A sign-in start that stores nothing on the server. passport-oauth2's default state store writes the
// OAuth `state` into the session, so every anonymous visitor who opens /auth/kudos makes the app save a
// session (a day, in whatever the sessions live in: anonymous traffic fills it). This store keeps the
// state in the visitor's own browser instead: an encrypted, authenticated cookie (AES-256-GCM, a key
// derived from your secret), HttpOnly, SameSite=Lax (sent on the service's top-level redirect back),
// that lives 10 minutes and is cleared at the callback, where it is checked as the session's was.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { KudosError } from 'kudos-core';

/**
 * Where a state cookie is set: Node's `ServerResponse` (Express's `req.res`), or anything with its two
 * header methods (a Fastify reply: `{ getHeader: (n) => reply.getHeader(n), setHeader: (n, v) => reply.header(n, v) }`).
 */
export interface KudosCookieResponse {
  getHeader(name: string): unknown;
  setHeader(name: string, value: string[]): unknown;
}

/** The request as a state store sees it: its headers, and where its response is (Express's `req.res`). */
export interface KudosCookieStateRequest {
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Express, Connect and NestJS on Express set it; elsewhere give `response` (docs/frameworks.md). */
  res?: KudosCookieResponse;
  /** Express's `req.secure` (behind a proxy: with `trust proxy`). */
  secure?: boolean;
  /** Fastify's and Express's `request.protocol`. */
  protocol?: string;
  socket?: { encrypted?: boolean } | null;
}

/**
 * Where the states a callback has used are remembered until they expire, so that one that comes back
 * signs nobody in. The default remembers them in this process (bounded); several instances share one
 * (`RedisUsedStates` of `passport-kudos/redis`), or a replay that reaches another instance is not seen.
 */
export interface KudosUsedStates {
  /** Marks `state` used for `ttlMs`: true the first time, false when it was used already. */
  markUsed(state: string, ttlMs: number): Promise<boolean>;
}

/** Options of {@link KudosCookieStateStore}. */
export interface KudosCookieStateStoreOptions {
  /**
   * Secret the cookie is encrypted with: at least 32 characters (a `TypeError` otherwise). Its key is
   * derived for this cookie alone (HKDF), so your session secret may serve. Several rotate keys: the
   * first encrypts, every one decrypts.
   */
  secret: string | readonly string[];
  /**
   * The cookies' name, before the sign-in's own suffix (`.` and 16 characters of its state); default
   * `kudos_oauth_state`. A `Secure` cookie at `Path=/` gets the `__Host-` prefix before it.
   */
  name?: string;
  /** How long a sign-in may take from its start, in milliseconds; default 10 minutes. */
  maxAgeMs?: number;
  /**
   * The `Secure` attribute: `'auto'` (default) sets it when the callback URL is `https` (as the
   * strategy resolves it: its `proxy: true` reads `X-Forwarded-Proto`), else when the request came
   * over HTTPS; `true` always; `false` never (plain-HTTP development only).
   */
  secure?: boolean | 'auto';
  /** The cookie's `Path`; default `/` (the callback must see it; only `/` takes the `__Host-` prefix). */
  path?: string;
  /**
   * Where a request's response is, to set and clear the cookie on; default `req.res` (Express). For
   * Fastify, whose reply is not reachable from its request: the reply an `onRequest` hook kept for it
   * (docs/frameworks.md#fastify).
   */
  response?: (req: KudosCookieStateRequest) => KudosCookieResponse | undefined;
  /**
   * Where used states are remembered until they expire (a replayed state signs nobody in); default in
   * this process, 100,000 live ones at most (past that a callback is refused, `used_states_full`, 503:
   * none is forgotten early). Several instances: a shared one (`RedisUsedStates`).
   */
  usedStates?: KudosUsedStates;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

/** What passport-oauth2 is told when the state does not check out (its own words, and so a 403). */
const INVALID = { message: 'Invalid authorization request state.' };
const MISSING = { message: 'Unable to verify authorization request state.' };

const DEFAULT_NAME = 'kudos_oauth_state';
const DEFAULT_MAX_AGE_MS = 10 * 60 * 1000;
const MIN_SECRET_LENGTH = 32;
/** Largest cookie value written: browsers keep about 4 kB per cookie, with its name and attributes. */
const MAX_VALUE_LENGTH = 3800;
/**
 * Most sign-ins under way in one browser (tabs), each its own cookie: a sixth start clears the oldest,
 * whose callback then fails as a stale one does. Well within browsers' 50 cookies and 4 kB each per site.
 */
export const MAX_PENDING_SIGN_INS = 5;
/** Characters of a state that name its cookie. */
const ID_LENGTH = 16;
/** Most used states the default memory holds live (about 15 MB): past that a callback is refused. */
const MAX_USED_STATES = 100_000;
const HOST_PREFIX = '__Host-';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * What the cookie holds: the handle sent as `state`, the PKCE verifier, the app's own state, the
 * expiry, and whether it was set under the `__Host-` prefix (a copy planted without it is refused).
 */
interface Sealed {
  h: string;
  v?: string;
  s?: unknown;
  e: number;
  p?: 1;
}

type StoreCallback = (err: Error | null, handle?: string) => void;
type VerifyCallback = (err: Error | null, ok: boolean | string, info?: unknown) => void;

/**
 * A state store in passport-oauth2's five-argument form (the PKCE verifier and the app's state handed
 * to `store`, the endpoints to `verify`), as {@link KudosCookieStateStore} is: what `KudosStrategy`'s
 * `store` option takes beside passport-oauth2's own `StateStore` type.
 */
export interface KudosStateStore {
  store(req: never, verifier: unknown, state: unknown, meta: unknown, callback: StoreCallback): void;
  verify(req: never, providedState: unknown, meta: unknown, callback: VerifyCallback): void;
}

function checkSecrets(secret: unknown): readonly string[] {
  const list: unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  if (list.length === 0 || !list.every((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH)) {
    throw new TypeError(
      `KudosCookieStateStore requires "secret": a string (or strings) of at least ${MIN_SECRET_LENGTH} characters, such as 32 random bytes in base64 (a short or guessable secret lets anyone forge a sign-in's state)`,
    );
  }
  return list as string[];
}

/** An AES-256 key of a secret, for this cookie only (HKDF, its own salt and label). */
function keyOf(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'passport-kudos', 'oauth state cookie', 32));
}

function seal(key: Buffer, value: Sealed): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** The cookie's content, or undefined when no key opens it (forged, cut, another app's). */
function open(keys: readonly Buffer[], text: string): Sealed | undefined {
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  const iv = bytes.subarray(0, IV_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
  for (const key of keys) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      const json = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      const value: unknown = JSON.parse(json);
      if (isSealed(value)) return value;
    } catch {
      // Not this key: try the next.
    }
  }
  return undefined;
}

function isSealed(value: unknown): value is Sealed {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.h === 'string' &&
    typeof record.e === 'number' &&
    (record.v === undefined || typeof record.v === 'string') &&
    (record.p === undefined || record.p === 1)
  );
}

/** Every cookie of a request's `Cookie` header(s), name to value (the first of a name wins, as browsers send the most specific first). */
function cookiesOf(req: KudosCookieStateRequest): Map<string, string> {
  const header = req.headers.cookie;
  const text = Array.isArray(header) ? header.join('; ') : typeof header === 'string' ? header : '';
  const found = new Map<string, string>();
  for (const part of text.split(';')) {
    const at = part.indexOf('=');
    const name = at > 0 ? part.slice(0, at).trim() : '';
    if (name !== '' && !found.has(name)) found.set(name, part.slice(at + 1).trim());
  }
  return found;
}

function isHttps(req: KudosCookieStateRequest): boolean {
  return req.secure === true || req.protocol === 'https' || req.socket?.encrypted === true;
}

/** The callback URL passport-oauth2 hands a state store in `meta`, when there is one. */
function callbackOf(meta: unknown): string | undefined {
  const url =
    typeof meta === 'object' && meta !== null ? (meta as { callbackURL?: unknown }).callbackURL : undefined;
  return typeof url === 'string' && URL.canParse(url) ? url : undefined;
}

/** A state this store made: 32 characters of base64url. */
const HANDLE = /^[A-Za-z0-9_-]{32}$/;

/**
 * The states remembered as used in this process, each for its whole life: a state is never forgotten
 * before it expires (a replay of it would sign someone in again). With `max` live ones held (a flood
 * of sign-in callbacks), a new one is refused, `used_states_full` (503), rather than one forgotten.
 */
class MemoryUsedStates implements KudosUsedStates {
  private readonly used = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly max = MAX_USED_STATES,
  ) {}

  async markUsed(state: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    if ((this.used.get(state) ?? 0) > now) return false;
    // Insertion order is expiry order (one lifetime): the expired ones are at the front.
    for (const [old, until] of this.used) {
      if (until > now) break;
      this.used.delete(old);
    }
    if (this.used.size >= this.max) {
      throw new KudosError('used_states_full', {
        message: `${this.max} sign-in states are in use in this process (a flood of callbacks?): this callback is refused rather than a used state forgotten. Pass "usedStates" (RedisUsedStates of passport-kudos/redis) to remember more`,
      });
    }
    this.used.set(state, now + ttlMs);
    return true;
  }
}

/**
 * A passport-oauth2 state store (`store` option of `KudosStrategy`) that keeps the OAuth `state` in an
 * encrypted, HttpOnly, SameSite=Lax cookie for 10 minutes instead of the session: an anonymous visitor
 * who starts a sign-in leaves nothing in any store. Each sign-in has its own cookie (`__Host-` and
 * `Secure` when the callback URL is `https`), so sign-ins started in several tabs all complete, and a
 * callback whose state is none of this browser's touches none of them. The callback checks it as
 * passport-oauth2's own session store does (a missing, expired, foreign or replayed state fails with
 * 403), clears it, and remembers it used until it expires. The app's `state` object and a PKCE
 * verifier ride along, encrypted.
 *
 * @example
 * ```ts
 * import { KudosCookieStateStore, KudosStrategy } from 'passport-kudos';
 * const strategy = new KudosStrategy(
 *   {
 *     clientID: 'kudos-demo-client',
 *     clientSecret: 'kudos-demo-secret',
 *     callbackURL: 'http://localhost:3000/auth/kudos/callback',
 *     authURL: 'http://127.0.0.1:4000',
 *     baseURL: 'http://127.0.0.1:4000/api',
 *     store: new KudosCookieStateStore({ secret: 'a-secret-of-32-characters-or-more-0123' }),
 *   },
 *   (_accessToken, _refreshToken, profile, done) => done(null, { id: profile.id }),
 * );
 * ```
 * @see docs/reference.md#a-sign-in-start-that-stores-nothing
 */
export class KudosCookieStateStore implements KudosStateStore {
  private readonly keys: readonly Buffer[];
  private readonly name: string;
  private readonly maxAgeMs: number;
  private readonly secure: boolean | 'auto';
  private readonly path: string;
  private readonly response: NonNullable<KudosCookieStateStoreOptions['response']>;
  private readonly usedStates: KudosUsedStates;
  private readonly now: () => number;

  constructor(options: KudosCookieStateStoreOptions) {
    this.keys = checkSecrets(options?.secret).map(keyOf);
    this.name = options.name ?? DEFAULT_NAME;
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(this.name) || this.name.startsWith('__')) {
      throw new TypeError(
        'KudosCookieStateStore option "name" must be 1 to 64 letters, digits, "_" or "-", not starting with "__" (the __Host- prefix is added for you)',
      );
    }
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    if (!(Number.isFinite(this.maxAgeMs) && this.maxAgeMs >= 1000)) {
      throw new TypeError(
        'KudosCookieStateStore option "maxAgeMs" must be a number of milliseconds, 1000 or more',
      );
    }
    this.secure = options.secure ?? 'auto';
    if (this.secure !== 'auto' && typeof this.secure !== 'boolean') {
      throw new TypeError('KudosCookieStateStore option "secure" must be true, false or "auto"');
    }
    this.path = options.path ?? '/';
    if (!/^\/[\x21-\x3a\x3c-\x7e]*$/.test(this.path)) {
      throw new TypeError('KudosCookieStateStore option "path" must be a path starting with "/"');
    }
    this.response = options.response ?? ((req) => req.res);
    this.now = options.now ?? Date.now;
    const used = options.usedStates;
    if (used !== undefined && typeof used?.markUsed !== 'function') {
      throw new TypeError('KudosCookieStateStore option "usedStates" must have markUsed(state, ttlMs)');
    }
    this.usedStates = used ?? new MemoryUsedStates(this.now);
  }

  /** Whether this sign-in's cookie is `Secure`: the callback URL's scheme, else the request's. */
  private isSecure(req: KudosCookieStateRequest, meta: unknown): boolean {
    if (this.secure !== 'auto') return this.secure;
    const callback = callbackOf(meta);
    return callback === undefined ? isHttps(req) : new URL(callback).protocol === 'https:';
  }

  /** The cookie name of a sign-in whose state starts with `id`, with the `__Host-` prefix when `host`. */
  private cookieName(id: string, host: boolean): string {
    return `${host ? HOST_PREFIX : ''}${this.name}.${id}`;
  }

  /**
   * passport-oauth2 calls this when a sign-in starts (five arguments: PKCE's verifier, the app's
   * state, the endpoints with the callback URL): sets this sign-in's cookie (clearing the oldest past
   * {@link MAX_PENDING_SIGN_INS}) and answers the handle sent as `state`.
   */
  store(
    req: KudosCookieStateRequest,
    verifier: unknown,
    state: unknown,
    meta: unknown,
    callback: StoreCallback,
  ): void {
    const handle = randomBytes(24).toString('base64url');
    const secure = this.isSecure(req, meta);
    const host = secure && this.path === '/';
    const sealed: Sealed = { h: handle, e: this.now() + this.maxAgeMs, ...(host ? { p: 1 as const } : {}) };
    if (typeof verifier === 'string') sealed.v = verifier;
    if (state !== undefined && state !== null && state !== '') sealed.s = state;
    const [key] = this.keys;
    const value = seal(key as Buffer, sealed);
    if (value.length > MAX_VALUE_LENGTH) {
      return callback(
        new TypeError('KudosCookieStateStore: the state given to authenticate() is too large for a cookie'),
      );
    }
    const res = this.response(req);
    if (!res) return callback(new TypeError(noResponse()));
    const cookies = [
      ...this.stale(req),
      this.cookie(this.cookieName(handle.slice(0, ID_LENGTH), host), value, secure, this.maxAgeMs / 1000),
    ];
    this.setCookies(res, cookies);
    callback(null, handle);
  }

  /**
   * The clearing cookies of this browser's sign-ins that are expired, unreadable, or the oldest past
   * {@link MAX_PENDING_SIGN_INS} (with the one starting now).
   */
  private stale(req: KudosCookieStateRequest): string[] {
    const pending: Array<{ name: string; expires: number }> = [];
    for (const [name, value] of cookiesOf(req)) {
      const plain = name.startsWith(HOST_PREFIX) ? name.slice(HOST_PREFIX.length) : name;
      if (!plain.startsWith(`${this.name}.`)) continue;
      pending.push({ name, expires: open(this.keys, value)?.e ?? 0 });
    }
    pending.sort((a, b) => a.expires - b.expires);
    const now = this.now();
    const cleared = pending.filter((p, i) => p.expires <= now || i <= pending.length - MAX_PENDING_SIGN_INS);
    return cleared.map((p) => this.cookie(p.name, '', p.name.startsWith(HOST_PREFIX), 0));
  }

  /**
   * passport-oauth2 calls this at the callback with the `state` the service sent back: true (or the
   * PKCE verifier) and the app's state when this browser's cookie of that state holds it, has not
   * expired and was not used before; false with passport-oauth2's own message otherwise. Only that
   * sign-in's cookie is read and cleared: a stray callback spoils no other sign-in under way.
   */
  verify(
    req: KudosCookieStateRequest,
    providedState: unknown,
    meta: unknown,
    callback: VerifyCallback,
  ): void {
    if (typeof providedState !== 'string' || !HANDLE.test(providedState))
      return callback(null, false, MISSING);
    const id = providedState.slice(0, ID_LENGTH);
    // Over https only the __Host- cookie counts: one without it may have been planted (a sibling
    // subdomain, a plain-HTTP man in the middle).
    const host = this.isSecure(req, meta) && this.path === '/';
    const name = this.cookieName(id, host);
    const text = cookiesOf(req).get(name);
    if (text === undefined) return callback(null, false, MISSING);
    const res = this.response(req);
    if (res) this.setCookies(res, [this.cookie(name, '', host, 0)]);
    const sealed = open(this.keys, text);
    const now = this.now();
    if (!sealed || sealed.e <= now || sealed.h !== providedState || (sealed.p === 1) !== host) {
      return callback(null, false, INVALID);
    }
    // Out of the promise before calling back into Passport: what the app's next handler throws is
    // thrown as it would be without a promise, not a lost rejection.
    const answer = (err: Error | null, ok: boolean | string, info?: unknown) =>
      process.nextTick(callback, err, ok, info);
    this.usedStates.markUsed(sealed.h, sealed.e - now).then(
      (first) => (first ? answer(null, sealed.v ?? true, sealed.s) : answer(null, false, INVALID)),
      (error: unknown) =>
        answer(error instanceof Error ? error : new Error('usedStates.markUsed() failed'), false),
    );
  }

  private cookie(name: string, value: string, secure: boolean, maxAgeS: number): string {
    return `${name}=${value}; Max-Age=${Math.ceil(maxAgeS)}; Path=${this.path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  /** Appends the cookies to what the response sets already (a session cookie beside them stays). */
  private setCookies(res: KudosCookieResponse, cookies: string[]): void {
    const before = res.getHeader('set-cookie');
    const list = Array.isArray(before) ? before : typeof before === 'string' ? [before] : [];
    const names = new Set(cookies.map((c) => c.slice(0, c.indexOf('='))));
    res.setHeader('set-cookie', [
      ...list.filter((c) => !names.has(String(c).slice(0, String(c).indexOf('=')))),
      ...cookies,
    ]);
  }
}

function noResponse(): string {
  return 'KudosCookieStateStore found no response to set its cookie on: req.res is Express\'s; elsewhere pass the "response" option (docs/frameworks.md)';
}
