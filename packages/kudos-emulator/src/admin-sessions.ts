import { randomBytes } from 'node:crypto';

// The home page's admin sessions: what the emulator's state holds for the admin checks of server/
// (admin-access.ts), kept here, below both, so that the state imports nothing of the server.

/** How long an admin session of the home page lasts, from the moment the token opened it: a working day. */
export const ADMIN_SESSION_MS = 8 * 60 * 60 * 1000;

/** One admin session: the host it was opened on (its origin), and when it ends. */
interface AdminSession {
  host: string;
  until: number;
}

/**
 * Admin sessions of the home page: random values, in memory (a restart asks for the token again).
 * Each lasts {@link ADMIN_SESSION_MS} and is bound to the origin it was opened on: the request's
 * `Host` (and its `Origin`, when a browser sends one) must be that one, so a cookie replayed to the
 * emulator under another name, or from a page of another origin, opens nothing.
 */
export class AdminSessions {
  private readonly sessions = new Map<string, AdminSession>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new session for a browser that gave the right token on `host`: the cookie's value. */
  open(host: string): string {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.until <= now) this.sessions.delete(id);
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, { host, until: now + ADMIN_SESSION_MS });
    return id;
  }

  /** Whether `id` is a live session opened on `host`, asked from that origin (or from no page). */
  has(id: string, host: string, origin: string | undefined): boolean {
    const session = id === '' ? undefined : this.sessions.get(id);
    if (!session) return false;
    if (session.until <= this.now()) {
      this.sessions.delete(id);
      return false;
    }
    // (https too: an emulator behind a TLS proxy that passes its Host on, with --host-allow)
    return (
      session.host === host &&
      (origin === undefined || origin === `http://${host}` || origin === `https://${host}`)
    );
  }
}
