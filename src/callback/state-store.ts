import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { isObjectLike } from 'kudos-core';

// The state stores passport-oauth2 sets up by itself (`state: true`, `store: true`, with or without
// `pkce`), made here so that the strategy hands passport-oauth2 the store it then verifies with:
// passport-oauth2 keeps its own in a private field with no accessor. Same session layouts
// (`req.session[key].state` = the handle, or `{ handle, code_verifier?, state? }`), same 24-character
// handle, same words and the same method arities (passport-oauth2 chooses how to call a store by them).

const NO_SESSION =
  'OAuth 2.0 authentication requires session support when using state. Did you forget to use express-session middleware?';
const UNVERIFIABLE = 'Unable to verify authorization request state.';
const MISMATCH = 'Invalid authorization request state.';

type Stored = (err: Error | null, handle?: string) => void;
type Verified = (err: Error | null, ok?: boolean | string, info?: unknown) => void;

/** What the session keeps between the redirect and the callback. */
interface SavedState {
  handle: string;
  code_verifier?: string;
  state?: unknown;
}

type Session = Record<string, unknown>;

function sessionOf(req: Request): Session | undefined {
  const session: unknown = (req as { session?: unknown }).session;
  return isObjectLike(session) ? (session as Session) : undefined;
}

/** A new handle: 18 random bytes are 24 characters, as long as passport-oauth2's. */
function newHandle(): string {
  return randomBytes(18).toString('base64url');
}

/** Keeps `entry` in the session under `key` and answers `handle`. */
function save(req: Request, key: string, entry: unknown, handle: string, done: Stored): void {
  const session = sessionOf(req);
  if (!session) return done(new Error(NO_SESSION));
  if (!isObjectLike(session[key])) session[key] = {};
  (session[key] as Session).state = entry;
  done(null, handle);
}

/** Takes the saved entry out of the session (it is used once) and hands it on when its handle matches. */
function take(
  req: Request,
  key: string,
  provided: string,
  handleOf: (entry: unknown) => unknown,
  done: (entry: unknown) => void,
  verified: Verified,
): void {
  const session = sessionOf(req);
  if (!session) return verified(new Error(NO_SESSION));
  const slot = session[key];
  const entry = isObjectLike(slot) ? (slot as Session).state : undefined;
  if (!isObjectLike(slot) || !entry) return verified(null, false, { message: UNVERIFIABLE });
  delete (slot as Session).state;
  if (Object.keys(slot).length === 0) delete session[key];
  if (handleOf(entry) !== provided) return verified(null, false, { message: MISMATCH });
  done(entry);
}

/** `state: true`: the handle alone in the session; the app's state object is not kept. */
class NonceStateStore {
  constructor(private readonly key: string) {}

  store(req: Request, done: Stored): void {
    const handle = newHandle();
    save(req, this.key, handle, handle, done);
  }

  verify(req: Request, provided: string, done: Verified): void {
    take(
      req,
      this.key,
      provided,
      (entry) => entry,
      () => done(null, true),
      done,
    );
  }
}

/** Keeps `entry`, with the app's state object when there is one. */
function saveEntry(req: Request, key: string, entry: SavedState, state: unknown, done: Stored): void {
  if (state) entry.state = state;
  save(req, key, entry, entry.handle, done);
}

/** Takes an entry out and answers `ok` of it, with the app's state object. */
function takeEntry(
  req: Request,
  key: string,
  provided: string,
  done: Verified,
  ok: (saved: SavedState) => boolean | string,
): void {
  const handleOf = (entry: unknown): unknown => (entry as SavedState).handle;
  take(
    req,
    key,
    provided,
    handleOf,
    (entry) => done(null, ok(entry as SavedState), (entry as SavedState).state),
    done,
  );
}

/** `store: true`: the handle and the app's state object in the session. */
class SessionStateStore {
  constructor(private readonly key: string) {}

  store(req: Request, state: unknown, _meta: unknown, done: Stored): void {
    saveEntry(req, this.key, { handle: newHandle() }, state, done);
  }

  verify(req: Request, provided: string, done: Verified): void {
    takeEntry(req, this.key, provided, done, () => true);
  }
}

/** `state: true` with `pkce`: the handle and the code verifier in the session. */
class PkceSessionStateStore {
  constructor(private readonly key: string) {}

  store(req: Request, verifier: string, state: unknown, _meta: unknown, done: Stored): void {
    saveEntry(req, this.key, { handle: newHandle(), code_verifier: verifier }, state, done);
  }

  verify(req: Request, provided: string, done: Verified): void {
    takeEntry(req, this.key, provided, done, (saved) => saved.code_verifier ?? false);
  }
}

/** `state: false`: nothing kept, every callback accepted (passport-oauth2's choice for that option). */
const NO_STATE = {
  store(_req: Request, done: Stored): void {
    done(null);
  },
  verify(_req: Request, _provided: string, done: Verified): void {
    done(null, true);
  },
};

/** A state store as the callback uses it: `verify(req, state, cb)` or `verify(req, state, meta, cb)`. */
export interface StateVerifier {
  verify(...args: unknown[]): void;
}

/** The options that decide the state store, as passport-oauth2 reads them. */
export interface StateStoreOptions {
  state: unknown;
  store?: unknown;
  pkce?: unknown;
  sessionKey?: string;
  authorizationURL: string;
}

/** passport-oauth2's session key: `sessionKey`, else `oauth2:` and the authorization page's host name. */
function sessionKeyOf(options: StateStoreOptions): string {
  if (options.sessionKey) return options.sessionKey;
  // url.parse() (passport-oauth2's reader) names an IPv6 host without its brackets.
  return `oauth2:${new URL(options.authorizationURL).hostname.replace(/^\[(.*)\]$/, '$1')}`;
}

/**
 * The store the strategy gives passport-oauth2 and verifies callbacks with: the app's own (`store`
 * as an object), else the one passport-oauth2 would set up for these options. Undefined for `pkce`
 * without state, which passport-oauth2 refuses with its own TypeError.
 */
export function stateStoreFor(options: StateStoreOptions): StateVerifier | undefined {
  if (isObjectLike(options.store)) return options.store as StateVerifier;
  const key = sessionKeyOf(options);
  if (options.pkce && (options.store || options.state)) return new PkceSessionStateStore(key);
  if (options.store) return new SessionStateStore(key);
  if (options.state) return new NonceStateStore(key);
  return options.pkce ? undefined : NO_STATE;
}

/** Calls the store's `verify` the way passport-oauth2 does: with `meta` when it takes 4 arguments. */
export function verifyState(
  store: StateVerifier,
  req: Request,
  state: string,
  meta: object,
  done: Verified,
): void {
  if (store.verify.length === 4) store.verify(req, state, meta, done);
  else store.verify(req, state, done);
}
