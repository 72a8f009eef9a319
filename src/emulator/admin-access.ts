import { sameSecret } from '../base/same-secret.js';
import { type Ctx, parseCookies } from './http.js';
import type { EmulatorState } from './state.js';

// Who may use the admin API and the home page: loopback callers, or holders of the admin token.

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
export function checkAccess(state: Pick<EmulatorState, 'options'>, ctx: Pick<Ctx, 'req'>): void {
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
  if (!hasAdminToken(token, ctx))
    throw new AdminError(401, 'admin_token_required', 'the admin API needs its token');
}

/** The cookie the home page sets once it was opened with `?admin_token=` (HttpOnly, SameSite=Lax). */
export const ADMIN_COOKIE = 'kudos_emulator_admin';

/** Whether a request carries the admin token: `Authorization: Bearer`, or the home page's cookie. */
export function hasAdminToken(token: string, ctx: Pick<Ctx, 'req'>): boolean {
  const header = ctx.req.headers.authorization ?? '';
  const bearer = header.startsWith('Bearer ') ? header.slice(7) : '';
  const cookie = parseCookies(ctx.req.headers.cookie).get(ADMIN_COOKIE) ?? '';
  return [bearer, cookie].some((given) => given !== '' && sameSecret(given, token));
}
