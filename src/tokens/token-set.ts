import type { KudosTokenResponse } from 'kudos-core';
import { ACCESS_TOKEN_LIFETIME_S, isObjectLike } from 'kudos-core';

/**
 * What an app stores per user to call Kudos later. Build it with {@link toTokenSet}; the verify
 * callback gets one as `params.tokenSet`.
 */
export interface KudosTokenSet {
  accessToken: string;
  /** Undefined when the service sent none. Only the newest one of a client + user works (docs/kudos-service.md#limits). */
  refreshToken: string | undefined;
  user: string;
  /** When the access token expires, epoch milliseconds: its own `exp` claim when readable, else issue time + 1 hour. */
  expiresAt: number;
  /** Granted scopes: the token's `scope` claim when readable, else the requested scope; undefined when unknown. */
  scope: string[] | undefined;
}

/** The claims passport-kudos reads from an access token, when it is a readable JWT. */
export interface ReadableClaims {
  exp?: number;
  /** Issue time, epoch seconds. */
  iat?: number;
  scope?: string[];
  /** The user ID, which the service's access tokens carry. */
  user?: string;
}

/**
 * Reads `exp`, `scope` and `user` from an access token that is a JWT (docs/kudos-service.md#observed-values). The token stays opaque
 * otherwise: nothing is verified, and anything unreadable is ignored.
 */
export function readJwtClaims(token: string): ReadableClaims {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return {};
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return {};
  }
  if (!isObjectLike(payload)) return {};
  const claims: ReadableClaims = {};
  const { exp, iat, scope, user } = payload as Record<string, unknown>;
  if (typeof user === 'string' && user !== '') claims.user = user;
  if (typeof exp === 'number' && Number.isFinite(exp) && exp > 0) claims.exp = exp;
  if (typeof iat === 'number' && Number.isFinite(iat) && iat > 0) claims.iat = iat;
  if (Array.isArray(scope) && scope.every((s) => typeof s === 'string')) claims.scope = scope;
  else if (typeof scope === 'string') claims.scope = scope.split(' ').filter(Boolean);
  return claims;
}

/**
 * Most the service's clock may be ahead of this server's: a token's `exp` further out than an hour
 * plus this is not believed. (The emulator's movable clock is one such clock.)
 */
const MAX_CLOCK_AHEAD_MS = 24 * 3600 * 1000;

/**
 * When the access token expires, never more than the service's one hour after it was issued,
 * whatever the source: `exp` capped at `iat` + 1 h when the token says when it was issued (else at
 * `issuedAt` + 1 h), and in any case at `issuedAt` + 1 h + {@link MAX_CLOCK_AHEAD_MS}. A token with
 * `exp` 1e13 or 1e308 is refreshed like any other, and `expiresAt` is always a finite date.
 */
function expiryOf(claims: ReadableClaims, issuedAt: number, lifetimeS: number): number {
  const hour = ACCESS_TOKEN_LIFETIME_S * 1000;
  if (claims.exp === undefined) return issuedAt + lifetimeS * 1000;
  const issued = claims.iat !== undefined ? claims.iat * 1000 : issuedAt;
  return Math.min(claims.exp * 1000, issued + hour, issuedAt + hour + MAX_CLOCK_AHEAD_MS);
}

/**
 * Builds the token set of a token response.
 *
 * @param response - a validated token response
 * @param requestedScope - the scope asked for, used when the token does not say what was granted
 * @param issuedAt - when the response arrived, epoch milliseconds (default now)
 *
 * `expiresAt` is the token's `exp` claim when readable, else `issuedAt` plus `expires_in`, and never
 * later than one hour after the token was issued (the service's access token lifetime).
 */
export function toTokenSet(
  response: KudosTokenResponse,
  requestedScope?: string | readonly string[],
  issuedAt: number = Date.now(),
): KudosTokenSet {
  const claims = readJwtClaims(response.access_token);
  // Never longer than the service's one hour (docs/kudos-service.md#limits): an absurd expires_in
  // (1e308) would otherwise make the token look valid forever and never be refreshed.
  const lifetimeS = Math.min(
    typeof response.expires_in === 'number' ? response.expires_in : ACCESS_TOKEN_LIFETIME_S,
    ACCESS_TOKEN_LIFETIME_S,
  );
  const requested =
    requestedScope === undefined
      ? undefined
      : typeof requestedScope === 'string'
        ? requestedScope.split(' ').filter(Boolean)
        : [...requestedScope];
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    user: response.user,
    expiresAt: expiryOf(claims, issuedAt, lifetimeS),
    scope: claims.scope ?? requested,
  };
}
