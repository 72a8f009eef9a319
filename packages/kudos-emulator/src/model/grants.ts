import { createHmac, randomUUID } from 'node:crypto';
import type { KudosTokenResponseAsSent, ProfileField, ServiceErrorWord } from 'kudos-core';
import { ACCESS_TOKEN_LIFETIME_S } from 'kudos-core';
import { OBSERVED_AVATAR_EXPIRES } from '../emulator-options.js';
import { type EmulatorState, grantKey } from '../state.js';
import { opaqueToken } from './ids.js';
import { type AccessTokenClaims, signJwt, verifyJwt } from './jwt.js';

/** Signs an avatar URL of `userId` that expires at `expires` (epoch seconds). */
export function avatarSignature(state: EmulatorState, userId: string, expires: number): string {
  return createHmac('sha256', state.jwtSecret).update(`avatar:${userId}:${expires}`).digest('base64url');
}

/** A signed avatar URL of `userId`, valid for the emulator's avatar lifetime. */
function avatarURL(state: EmulatorState, userId: string): string {
  const lifetime = state.options.avatarLifetimeMs;
  // The URL's Expires is epoch seconds, as the service's are.
  const expires =
    lifetime === undefined ? OBSERVED_AVATAR_EXPIRES : Math.floor((state.clock.now() + lifetime) / 1000);
  const signature = avatarSignature(state, userId, expires);
  return `${state.origin}/avatars/${encodeURIComponent(userId)}.svg?Expires=${expires}&Signature=${signature}`;
}

/**
 * The profile fields of a user, as the token response and the profile operation send them: typed by
 * the wire contract, so a profile field added there must be sent here.
 */
export function profileFields(
  state: EmulatorState,
  userId: string,
): Pick<KudosTokenResponseAsSent, 'user' | ProfileField> {
  return {
    user: userId,
    displayName: state.users.get(userId)?.displayName ?? userId,
    avatar: avatarURL(state, userId),
  };
}

/** Issues an authorization code for an accepted consent. */
export function issueCode(
  state: EmulatorState,
  grant: { clientID: string; userId: string; redirectURI: string; scope: string[] },
): string {
  const code = opaqueToken();
  state.codes.set(code, {
    ...grant,
    expiresAt: state.clock.now() + state.options.codeLifetimeMs,
    used: false,
  });
  const key = grantKey(grant.clientID, grant.userId);
  // The grant is everything the user consented to so far: a narrower request later needs no consent.
  const earlier = state.grants.get(key)?.scope ?? [];
  state.grants.set(key, {
    clientID: grant.clientID,
    userId: grant.userId,
    scope: [...new Set([...earlier, ...grant.scope])],
    grantedAt: state.clock.now(),
  });
  return code;
}

/**
 * Issues an access token and a refresh token for a client + user. Issuing a new refresh token ends
 * the previous one of the same client + user (docs/kudos-service.md#limits rule a). With `keep`, the
 * given refresh token is answered again instead (a refresh in `refreshTokens: 'reuse'` mode).
 */
export function issueTokens(
  state: EmulatorState,
  clientID: string,
  userId: string,
  scope: string[],
  keep?: string,
): KudosTokenResponseAsSent {
  if (!state.users.has(userId)) throw new Error('issueTokens: unknown user');
  const key = grantKey(clientID, userId);
  let refreshToken = keep;
  if (refreshToken === undefined) {
    const previous = state.activeRefresh.get(key);
    if (previous) state.refreshTokens.delete(previous);
    refreshToken = opaqueToken();
    state.refreshTokens.set(refreshToken, { clientID, userId, scope });
    state.activeRefresh.set(key, refreshToken);
  }
  const host = state.host; // aud and iss are the service's host name (observed)

  const iat = state.clock.nowSeconds();
  const claims: AccessTokenClaims = {
    user: userId,
    scope,
    azp: clientID,
    iat,
    exp: iat + ACCESS_TOKEN_LIFETIME_S,
    aud: host,
    iss: host,
    jti: randomUUID(),
  };
  const ids = state.accessTokenIds.get(key) ?? new Set<string>();
  ids.add(claims.jti);
  state.accessTokenIds.set(key, ids);
  return {
    ...profileFields(state, userId),
    refresh_token: refreshToken,
    access_token: signJwt(claims, state.jwtSecret),
  };
}

/**
 * The user revoked the app (docs/kudos-service.md#limits rule b): ends its refresh token and the
 * grant. Its access tokens keep working until they expire, as observed, unless
 * `revokeEndsAccessTokens` is set.
 */
export function revokeGrant(state: EmulatorState, clientID: string, userId: string): boolean {
  const key = grantKey(clientID, userId);
  const refresh = state.activeRefresh.get(key);
  if (refresh) state.refreshTokens.delete(refresh);
  state.activeRefresh.delete(key);
  if (state.options.revokeEndsAccessTokens) {
    for (const id of state.accessTokenIds.get(key) ?? []) state.revokedAccessTokenIds.add(id);
  }
  state.accessTokenIds.delete(key);
  return state.grants.delete(key);
}

/**
 * The client revokes a token (docs/kudos-service.md#limits rule c): a refresh token ends its grant
 * (see {@link revokeGrant}); an access token ends only with `revokeEndsAccessTokens` (observed:
 * access tokens are checked by signature and `exp` alone). Unknown tokens are ignored.
 */
export function revokeToken(state: EmulatorState, clientID: string, token: string): void {
  const refresh = state.refreshTokens.get(token);
  if (refresh) {
    if (refresh.clientID === clientID) revokeGrant(state, clientID, refresh.userId);
    return;
  }
  const claims = verifyJwt(token, state.jwtSecret);
  if (claims && claims.azp === clientID && state.options.revokeEndsAccessTokens) {
    state.revokedAccessTokenIds.add(claims.jti);
  }
}

type BearerCheck =
  | { ok: true; claims: AccessTokenClaims }
  | { ok: false; code: Extract<ServiceErrorWord, 'LOGIN_NEEDED' | 'TOKEN_EXPIRED'> };

/**
 * Checks the access token of an API call: `Authorization: Bearer <token>` (exact casing) or, as
 * observed, an `access_token` query parameter (docs/kudos-service.md#authenticated-api). A `Bearer`
 * header wins: an empty or garbage one is refused whatever the query holds (observed). Answers 401
 * `LOGIN_NEEDED` or `TOKEN_EXPIRED` (docs/kudos-service.md#errors).
 */
export function checkBearer(
  state: EmulatorState,
  header: string | undefined,
  query: URLSearchParams,
): BearerCheck {
  let token: string | undefined;
  if (header?.startsWith('Bearer')) {
    token = /^Bearer ([\w-]+\.[\w-]+\.[\w-]+)$/.exec(header)?.[1];
  } else {
    const queried = query.getAll('access_token');
    token = queried.length === 1 ? queried[0] : undefined;
  }
  const claims = token ? verifyJwt(token, state.jwtSecret) : undefined;
  if (!claims || state.revokedAccessTokenIds.has(claims.jti)) return { ok: false, code: 'LOGIN_NEEDED' };
  if (state.clock.nowSeconds() >= claims.exp) return { ok: false, code: 'TOKEN_EXPIRED' };
  return { ok: true, claims };
}
