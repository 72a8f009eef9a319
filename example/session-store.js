// The example's in-memory session store: express-session's own MemoryStore never drops a session
// nobody comes back for, so every anonymous "Sign in" click would cost memory for 24 hours.
// Sessions that only hold a sign-in's state (no signed-in user) live at most ANONYMOUS_SESSION_MS and
// at most MAX_ANONYMOUS_SESSIONS of them are kept (the oldest go first); signed-in sessions keep
// their cookie's lifetime. Several instances share sessions in a Redis of their own (REDIS_SESSIONS_URL,
// example/redis-stores.js), apart from the payments' REDIS_URL.
import session from 'express-session';

/** Longest life of a session without a signed-in user: time enough to finish a sign-in. */
export const ANONYMOUS_SESSION_MS = 10 * 60 * 1000;
/** Most sessions without a signed-in user kept at once. */
export const MAX_ANONYMOUS_SESSIONS = 10_000;
/** Most sessions of one account at once: an eleventh sign-in ends the oldest of its sessions. */
export const MAX_SESSIONS_PER_ACCOUNT = 10;
/** Most signed-in sessions at once (all accounts): the least recently used goes first. */
export const MAX_SIGNED_IN_SESSIONS = 100_000;

/** @param {session.SessionData} data */
function signedIn(data) {
  return Boolean(/** @type {{ passport?: { user?: unknown } }} */ (data).passport?.user);
}

/** The account a signed-in session is of (what Passport serialized), as a key. @param {session.SessionData} data */
function accountOf(data) {
  return JSON.stringify(/** @type {{ passport?: { user?: unknown } }} */ (data).passport?.user);
}

/** Drops the expired entries at the front of an insertion-ordered map. */
function sweep(entries, now) {
  for (const [sid, entry] of entries) {
    if (entry.expires > now) return;
    entries.delete(sid);
  }
}

export class BoundedMemoryStore extends session.Store {
  /**
   * @param {{ maxAnonymous?: number, anonymousMs?: number, maxPerAccount?: number, maxSignedIn?: number, now?: () => number }} [options]
   */
  constructor(options = {}) {
    super();
    this.maxAnonymous = options.maxAnonymous ?? MAX_ANONYMOUS_SESSIONS;
    this.maxPerAccount = options.maxPerAccount ?? MAX_SESSIONS_PER_ACCOUNT;
    this.maxSignedIn = options.maxSignedIn ?? MAX_SIGNED_IN_SESSIONS;
    /** @type {Map<string, Set<string>>} each account's signed-in session IDs, oldest first */
    this.byAccount = new Map();
    this.anonymousMs = options.anonymousMs ?? ANONYMOUS_SESSION_MS;
    this.now = options.now ?? Date.now;
    /** @type {Map<string, { json: string, expires: number }>} anonymous sessions, oldest first */
    this.anonymous = new Map();
    /** @type {Map<string, { json: string, expires: number }>} signed-in sessions, least recently saved first */
    this.users = new Map();
  }

  /** Number of sessions held: `{ anonymous, signedIn }`. */
  get counts() {
    return { anonymous: this.anonymous.size, signedIn: this.users.size };
  }

  get(sid, callback) {
    const now = this.now();
    const entry = this.anonymous.get(sid) ?? this.users.get(sid);
    if (!entry || entry.expires <= now) {
      this.anonymous.delete(sid);
      this.forget(sid);
      return callback(null, null);
    }
    callback(null, JSON.parse(entry.json));
  }

  set(sid, data, callback) {
    const now = this.now();
    sweep(this.anonymous, now);
    for (const [id, entry] of this.users) {
      if (entry.expires > now) break;
      this.forget(id);
    }
    const cookieExpires = data.cookie?.expires ? new Date(data.cookie.expires).getTime() : now + 86_400_000;
    this.anonymous.delete(sid);
    this.forget(sid);
    if (signedIn(data)) {
      this.users.set(sid, { json: JSON.stringify(data), expires: cookieExpires, account: accountOf(data) });
      this.keepFor(accountOf(data), sid);
      for (const oldest of this.users.keys()) {
        if (this.users.size <= this.maxSignedIn) break;
        this.forget(oldest);
      }
    } else {
      const expires = Math.min(cookieExpires, now + this.anonymousMs);
      this.anonymous.set(sid, { json: JSON.stringify(data), expires });
      for (const oldest of this.anonymous.keys()) {
        if (this.anonymous.size <= this.maxAnonymous) break;
        this.anonymous.delete(oldest);
      }
    }
    callback?.(null);
  }

  touch(sid, data, callback) {
    this.set(sid, data, callback);
  }

  destroy(sid, callback) {
    this.anonymous.delete(sid);
    this.forget(sid);
    callback?.(null);
  }

  /** Records `sid` as one of `account`'s sessions, ending its oldest beyond `maxPerAccount`. */
  keepFor(account, sid) {
    const sids = this.byAccount.get(account) ?? new Set();
    sids.add(sid);
    this.byAccount.set(account, sids);
    for (const oldest of sids) {
      if (sids.size <= this.maxPerAccount) break;
      this.forget(oldest);
    }
  }

  /** Drops a signed-in session and its place in its account's list. */
  forget(sid) {
    const entry = this.users.get(sid);
    this.users.delete(sid);
    if (!entry?.account) return;
    const sids = this.byAccount.get(entry.account);
    sids?.delete(sid);
    if (sids?.size === 0) this.byAccount.delete(entry.account);
  }
}
