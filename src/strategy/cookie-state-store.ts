// A sign-in start that stores nothing on the server. passport-oauth2's default state store writes the
// OAuth `state` into the session, so every anonymous visitor who opens /auth/kudos makes the app save a
// session (a day, in whatever the sessions live in: anonymous traffic fills it). This store keeps the
// state in the visitor's own browser instead: an encrypted, authenticated cookie (AES-256-GCM, a key
// derived from your secret), HttpOnly, SameSite=Lax (sent on the service's top-level redirect back),
// that lives 10 minutes and is cleared at the callback, where it is checked as the session's was.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

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

/** Options of {@link KudosCookieStateStore}. */
export interface KudosCookieStateStoreOptions {
  /**
   * Secret the cookie is encrypted with: at least 16 characters (a `TypeError` otherwise). Its key is
   * derived for this cookie alone (HKDF), so your session secret may serve. Several rotate keys: the
   * first encrypts, every one decrypts.
   */
  secret: string | readonly string[];
  /** The cookie's name; default `kudos_oauth_state`. */
  name?: string;
  /** How long a sign-in may take from its start, in milliseconds; default 10 minutes. */
  maxAgeMs?: number;
  /**
   * The `Secure` attribute: `'auto'` (default) sets it when the request came over HTTPS (`req.secure`,
   * `req.protocol`, or a TLS socket); `true` always; `false` never (plain-HTTP development only).
   */
  secure?: boolean | 'auto';
  /** The cookie's `Path`; default `/` (the callback must see it). */
  path?: string;
  /**
   * Where a request's response is, to set and clear the cookie on; default `req.res` (Express). For
   * Fastify, whose reply is not reachable from its request: the reply an `onRequest` hook kept for it
   * (docs/frameworks.md#fastify).
   */
  response?: (req: KudosCookieStateRequest) => KudosCookieResponse | undefined;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

/** What passport-oauth2 is told when the state does not check out (its own words, and so a 403). */
const INVALID = { message: 'Invalid authorization request state.' };
const MISSING = { message: 'Unable to verify authorization request state.' };

const DEFAULT_NAME = 'kudos_oauth_state';
const DEFAULT_MAX_AGE_MS = 10 * 60 * 1000;
const MIN_SECRET_LENGTH = 16;
/** Largest cookie value written: browsers keep about 4 kB per cookie, with its name and attributes. */
const MAX_VALUE_LENGTH = 3800;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What the cookie holds: the handle sent as `state`, the PKCE verifier, the app's own state, the expiry. */
interface Sealed {
  h: string;
  v?: string;
  s?: unknown;
  e: number;
}

type StoreCallback = (err: Error | null, handle?: string) => void;
type VerifyCallback = (err: Error | null, ok: boolean | string, info?: unknown) => void;

/**
 * A state store in passport-oauth2's five-argument form (the PKCE verifier and the app's state handed
 * to `store`), as {@link KudosCookieStateStore} is: what `KudosStrategy`'s `store` option takes beside
 * passport-oauth2's own `StateStore` type.
 */
export interface KudosStateStore {
  store(req: never, verifier: unknown, state: unknown, meta: unknown, callback: StoreCallback): void;
  verify(req: never, providedState: unknown, callback: VerifyCallback): void;
}

function checkSecrets(secret: unknown): readonly string[] {
  const list: unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  if (list.length === 0 || !list.every((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH)) {
    throw new TypeError(
      `KudosCookieStateStore requires "secret": a string (or strings) of at least ${MIN_SECRET_LENGTH} characters`,
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
    (record.v === undefined || typeof record.v === 'string')
  );
}

/** The value of cookie `name` in a request's `Cookie` header(s), undefined when absent. */
function cookieOf(req: KudosCookieStateRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  const text = Array.isArray(header) ? header.join('; ') : typeof header === 'string' ? header : '';
  for (const part of text.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function isHttps(req: KudosCookieStateRequest): boolean {
  return req.secure === true || req.protocol === 'https' || req.socket?.encrypted === true;
}

/**
 * A passport-oauth2 state store (`store` option of `KudosStrategy`) that keeps the OAuth `state` in an
 * encrypted, HttpOnly, SameSite=Lax cookie for 10 minutes instead of the session: an anonymous visitor
 * who starts a sign-in leaves nothing in any store. The callback checks it as passport-oauth2's own
 * session store does (a missing, expired, foreign or replayed state fails with 403) and clears it. The
 * app's `state` object and a PKCE verifier ride along, encrypted.
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
 *     store: new KudosCookieStateStore({ secret: process.env.SESSION_SECRET ?? 'change-me-in-production' }),
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
  private readonly now: () => number;

  constructor(options: KudosCookieStateStoreOptions) {
    this.keys = checkSecrets(options?.secret).map(keyOf);
    this.name = options.name ?? DEFAULT_NAME;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(this.name)) {
      throw new TypeError(
        'KudosCookieStateStore option "name" must be 1 to 64 letters, digits, "_", "." or "-"',
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
  }

  /**
   * passport-oauth2 calls this when a sign-in starts (five arguments: PKCE's verifier, the app's
   * state, the endpoints): sets the cookie and answers the handle sent as `state`.
   */
  store(
    req: KudosCookieStateRequest,
    verifier: unknown,
    state: unknown,
    _meta: unknown,
    callback: StoreCallback,
  ): void {
    const handle = randomBytes(24).toString('base64url');
    const sealed: Sealed = { h: handle, e: this.now() + this.maxAgeMs };
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
    this.setCookie(req, res, value, Math.ceil(this.maxAgeMs / 1000));
    callback(null, handle);
  }

  /**
   * passport-oauth2 calls this at the callback with the `state` the service sent back: true (or the
   * PKCE verifier) and the app's state when the cookie holds that handle and has not expired; false with
   * passport-oauth2's own message otherwise. The cookie is cleared either way: a state is used once.
   */
  verify(req: KudosCookieStateRequest, providedState: unknown, callback: VerifyCallback): void {
    const text = cookieOf(req, this.name);
    if (text === undefined) return callback(null, false, MISSING);
    const res = this.response(req);
    if (res) this.setCookie(req, res, '', 0);
    const sealed = open(this.keys, text);
    if (
      !sealed ||
      sealed.e <= this.now() ||
      typeof providedState !== 'string' ||
      sealed.h !== providedState
    ) {
      return callback(null, false, INVALID);
    }
    callback(null, sealed.v ?? true, sealed.s);
  }

  /** Appends the cookie to what the response sets already (a session cookie beside it stays). */
  private setCookie(
    req: KudosCookieStateRequest,
    res: KudosCookieResponse,
    value: string,
    maxAge: number,
  ): void {
    const secure = this.secure === 'auto' ? isHttps(req) : this.secure;
    const cookie = `${this.name}=${value}; Max-Age=${maxAge}; Path=${this.path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
    const before = res.getHeader('set-cookie');
    const list = Array.isArray(before) ? before : typeof before === 'string' ? [before] : [];
    res.setHeader('set-cookie', [...list.filter((c) => !c.startsWith(`${this.name}=`)), cookie]);
  }
}

function noResponse(): string {
  return 'KudosCookieStateStore found no response to set its cookie on: req.res is Express\'s; elsewhere pass the "response" option (docs/frameworks.md)';
}
