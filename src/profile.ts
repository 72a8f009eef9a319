import { type KudosTokenResponse, validateTokenResponse } from './token-response.js';

/** The profile fields of the token response: the part that describes the user, without tokens. */
export interface KudosProfileJson {
  user: string;
  displayName?: string;
  avatar?: string;
}

/**
 * Passport's normalized profile for a Kudos user.
 * @see http://www.passportjs.org/docs/profile/
 */
export interface KudosProfile {
  provider: 'kudos';
  /** The Kudos user ID (`user`). */
  id: string;
  /** Same as `id`: Kudos user IDs are handles. */
  username: string;
  /** `displayName` of the token response, or the user ID when the service sent none. */
  displayName: string;
  /** The avatar, when there is one. A signed URL that expires: refresh it at each login. */
  photos?: [{ value: string }];
  /** The profile fields as JSON text. Tokens are never included. */
  _raw: string;
  /** The profile fields (`user`, `displayName`, `avatar`). Tokens are never included. */
  _json: KudosProfileJson;
}

/** Builds the Passport profile from a token response that was already validated. */
export function profileFromResponse(response: KudosTokenResponse): KudosProfile {
  const profileJson: KudosProfileJson = { user: response.user };
  if (response.displayName !== undefined) profileJson.displayName = response.displayName;
  if (response.avatar !== undefined && response.avatar !== '') profileJson.avatar = response.avatar;
  const profile: KudosProfile = {
    provider: 'kudos',
    id: response.user,
    username: response.user,
    displayName: response.displayName || response.user,
    _raw: JSON.stringify(profileJson),
    _json: profileJson,
  };
  if (profileJson.avatar !== undefined) profile.photos = [{ value: profileJson.avatar }];
  return profile;
}

/**
 * Builds the Passport profile from a token response. Kudos has no profile endpoint in this
 * interface: the token response itself carries `user`, `displayName` and `avatar`.
 *
 * Throws `KudosTokenError` (`invalid_token_response`) when the response is not usable.
 *
 * @see docs/kudos-service.md#token-response
 */
export function parseProfile(json: unknown): KudosProfile {
  return profileFromResponse(validateTokenResponse(json));
}
