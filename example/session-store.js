// The example's in-memory session store: express-session's own MemoryStore never drops a session
// nobody comes back for, so every anonymous "Log in" click would cost memory for 24 hours.
// Sessions that only hold a login state (no signed-in user) live at most ANONYMOUS_SESSION_MS and
// at most MAX_ANONYMOUS_SESSIONS of them are kept (the oldest go first); signed-in sessions keep
// their cookie's lifetime. Use a shared store (Redis, see REDIS_URL) for several instances.
import session from 'express-session';

/** Longest life of a session without a signed-in user: time enough to finish a login. */
export const ANONYMOUS_SESSION_MS = 10 * 60 * 1000;
/** Most sessions without a signed-in user kept at once. */
export const MAX_ANONYMOUS_SESSIONS = 10_000;

/** @param {session.SessionData} data */
function signedIn(data) {
  return Boolean(/** @type {{ passport?: { user?: unknown } }} */ (data).passport?.user);
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
   * @param {{ maxAnonymous?: number, anonymousMs?: number, now?: () => number }} [options]
   */
  constructor(options = {}) {
    super();
    this.maxAnonymous = options.maxAnonymous ?? MAX_ANONYMOUS_SESSIONS;
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
      this.users.delete(sid);
      return callback(null, null);
    }
    callback(null, JSON.parse(entry.json));
  }

  set(sid, data, callback) {
    const now = this.now();
    sweep(this.anonymous, now);
    sweep(this.users, now);
    const cookieExpires = data.cookie?.expires ? new Date(data.cookie.expires).getTime() : now + 86_400_000;
    this.anonymous.delete(sid);
    this.users.delete(sid);
    if (signedIn(data)) {
      this.users.set(sid, { json: JSON.stringify(data), expires: cookieExpires });
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
    this.users.delete(sid);
    callback?.(null);
  }
}
