import type { AdminSessions } from '../admin-sessions.js';
import { sameSecret } from '../checks.js';
import { type Ctx, parseCookies } from './http.js';

// Who may use the admin API and the home page: loopback callers, or holders of the admin token.

/** What the checks read of the emulator's state (structurally: the state holds these). */
interface AdminContext {
  options: { adminToken?: string | undefined };
  adminSessions: AdminSessions;
}

/** A refused admin request: status, stable code, and the field it is about. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

function isLoopback(address: string | undefined): boolean {
  const a = address ?? '';
  return a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.');
}

/**
 * The admin API answers only a loopback address, unless an admin token is set; then only requests
 * carrying it (`Authorization: Bearer <token>`), from anywhere.
 */
export function checkAccess(state: AdminContext, ctx: Pick<Ctx, 'req'>): void {
  const token = state.options.adminToken;
  if (token === undefined) {
    if (!isLoopback(ctx.req.socket.remoteAddress)) {
      throw new AdminError(
        403,
        'loopback_only',
        'the admin API answers only on a loopback address (or set --admin-token)',
      );
    }
    return;
  }
  if (!hasAdminAccess(state, ctx))
    throw new AdminError(401, 'admin_token_required', 'the admin API needs its token');
}

/**
 * The cookie the home page sets once it was opened with `?admin_token=` (HttpOnly, SameSite=Lax). It
 * holds a random session value the emulator maps to admin access, never the token itself: cookies
 * are sent to every port of a host, so a server on another port must not learn the token from it.
 */
export const ADMIN_COOKIE = 'kudos_emulator_admin';

/** Whether `given` is the admin token (constant time). */
export function isAdminToken(state: Pick<AdminContext, 'options'>, given: string): boolean {
  const token = state.options.adminToken;
  return token !== undefined && given !== '' && sameSecret(given, token);
}

/** Whether a request has admin access: the token as `Authorization: Bearer`, or a home-page session cookie. */
export function hasAdminAccess(state: AdminContext, ctx: Pick<Ctx, 'req'>): boolean {
  const header = ctx.req.headers.authorization ?? '';
  const bearer = header.startsWith('Bearer ') ? header.slice(7) : '';
  const cookie = parseCookies(ctx.req.headers.cookie).get(ADMIN_COOKIE) ?? '';
  const { host = '', origin } = ctx.req.headers;
  return isAdminToken(state, bearer) || state.adminSessions.has(cookie, host, origin);
}
