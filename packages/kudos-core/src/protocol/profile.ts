import { isRecord } from '../base/guards.js';
import {
  type KudosTokenResponse,
  PROFILE_FIELDS,
  type ProfileField,
  validateTokenResponse,
} from './token-response.js';

/**
 * The profile fields: those of the token response (`user`, `displayName`, `avatar`), without tokens,
 * and, when the profile came from `GET {baseURL}/users/profile` (`fetchProfile`), its wallet
 * addresses and `email` (with the `email` scope) and any other field it sent.
 */
export interface KudosProfileJson extends Partial<Record<ProfileField, string>> {
  user: string;
  /**
   * The legacy Ethereum-style address (`0x…`), never a chain address; absent for users without one
   * (profile operation only). A shop's `wallet` option takes `cosmosWallet` or `kudosWallet`, never this.
   */
  wallet?: string;
  /** Chain wallet address in the legacy spelling, `cosmos1...` (profile operation only; absent for a user with no chain wallet). */
  cosmosWallet?: string;
  /** E-mail address (profile operation only, with the `email` scope). */
  email?: string;
  /** A civic (paying member) user (profile operation only; absent for others). */
  isSubscribedCivicLiker?: boolean;
  /** A civic user on a trial (profile operation only; absent for others). */
  isCivicLikerTrial?: boolean;
  /** Since when the user is civic, epoch milliseconds (profile operation only). */
  civicLikerSince?: number;
  [field: string]: unknown;
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
  /** The avatar, when there is one (a signed storage URL). */
  photos?: [{ value: string }];
  /** The e-mail address, when the profile operation sent one (`fetchProfile` and the `email` scope). */
  emails?: [{ value: string }];
  /** The profile fields as JSON text. Tokens are never included. */
  _raw: string;
  /** The profile fields. Tokens are never included. */
  _json: KudosProfileJson;
}

/** The Passport profile of checked profile fields. */
function toProfile(profileJson: KudosProfileJson, raw: string): KudosProfile {
  const profile: KudosProfile = {
    provider: 'kudos',
    id: profileJson.user,
    username: profileJson.user,
    displayName: profileJson.displayName || profileJson.user,
    _raw: raw,
    _json: profileJson,
  };
  if (profileJson.avatar) profile.photos = [{ value: profileJson.avatar }];
  if (profileJson.email) profile.emails = [{ value: profileJson.email }];
  return profile;
}

/** Builds the Passport profile from a token response that was already validated. */
export function profileFromResponse(response: KudosTokenResponse): KudosProfile {
  const profileJson: KudosProfileJson = { user: response.user };
  for (const field of PROFILE_FIELDS) {
    const value = response[field];
    if (value !== undefined && value !== '') profileJson[field] = value; // empty: not set
  }
  return toProfile(profileJson, JSON.stringify(profileJson));
}

/** Fields of the profile operation's answer that must be strings when present. */
const OPTIONAL_STRINGS = [...PROFILE_FIELDS, 'wallet', 'cosmosWallet', 'email'] as const;

/**
 * Builds the Passport profile from the answer of `GET {baseURL}/users/profile`
 * (docs/kudos-service.md#authenticated-api). Returns a message naming the field when the answer is
 * not a profile: `user` must be a non-empty string, the other known fields strings when present.
 */
export function profileFromApi(json: unknown, raw: string): KudosProfile | string {
  if (!isRecord(json)) return 'profile answer must be a JSON object';
  if (typeof json.user !== 'string' || json.user === '')
    return 'profile answer "user" must be a non-empty string';
  const fields: Record<string, unknown> = { ...json };
  for (const field of OPTIONAL_STRINGS) {
    if (fields[field] === null)
      delete fields[field]; // null: not set, for the service as for us
    else if (fields[field] !== undefined && typeof fields[field] !== 'string') {
      return `profile answer "${field}" must be a string when present`;
    }
  }
  return toProfile(fields as KudosProfileJson, raw);
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
