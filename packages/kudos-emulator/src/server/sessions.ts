import { randomBytes } from 'node:crypto';
import type { EmulatorState, LoginSession } from '../state.js';
import type { Ctx } from './http.js';
import { setCookie } from './http.js';

/** Name of the emulator's own login cookie (distinct from any app's session cookie on the same host). */
const SESSION_COOKIE = 'kudos_emulator_session';

/** The logged-in user's session, if any. */
export function currentSession(state: EmulatorState, ctx: Ctx): LoginSession | undefined {
  const id = ctx.cookies.get(SESSION_COOKIE);
  const session = id ? state.sessions.get(id) : undefined;
  return session && state.users.has(session.userId) ? session : undefined;
}

/** Logs a user in: a new session id (never reused), set as an HttpOnly cookie. */
export function startSession(state: EmulatorState, ctx: Ctx, userId: string): LoginSession {
  const previous = ctx.cookies.get(SESSION_COOKIE);
  if (previous) state.sessions.delete(previous);
  const id = randomBytes(24).toString('base64url');
  const session = { userId, csrf: randomBytes(18).toString('base64url') };
  state.sessions.set(id, session);
  setCookie(ctx.res, SESSION_COOKIE, id);
  return session;
}

export function endSession(state: EmulatorState, ctx: Ctx): void {
  const id = ctx.cookies.get(SESSION_COOKIE);
  if (id) state.sessions.delete(id);
  setCookie(ctx.res, SESSION_COOKIE, '', 0);
}

/** A local path under `/in/` to continue to after login; anything else goes to the account page. */
export function safeNext(next: string | undefined | null): string {
  return next && /^\/in\/[^\\]*$/.test(next) && !next.startsWith('//') ? next : '/in/account';
}
