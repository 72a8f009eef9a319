import { KudosTokenError } from './errors.js';
import type { KudosTokenSet } from './tokens/token-set.js';

/**
 * The token response of Kudos (section 2.1): the profile and the tokens in one object.
 * A real response has exactly these five fields (no `expires_in`, `token_type` or `scope`).
 *
 * @see ../shared/spec/interface.md section 2.1 and 4.2
 */
export interface KudosTokenResponse {
  /** User ID of the authorizing user, a short lower-case handle. */
  user: string;
  /** Display name of the user. */
  displayName?: string;
  /** Signed, time-limited URL of the avatar image. */
  avatar?: string;
  /** Refresh token; see section 8 for its validity. */
  refresh_token?: string;
  /** Access token, a bearer token valid for one hour. */
  access_token: string;
  /** Any field the service may add is kept. */
  [field: string]: unknown;
}

/**
 * `params` handed to a verify function of arity 5 (6 with the request): the token response,
 * plus `expires_in: 3600` when the service sent none (the access token lives one hour, section 8),
 * and `tokenSet` (not enumerable) ready to store.
 */
export interface KudosTokenParams extends KudosTokenResponse {
  expires_in: number;
  /** The token set to store for this user (see "Keeping users signed in"). Not enumerable. */
  readonly tokenSet: KudosTokenSet;
}

/** Access token lifetime in seconds, from section 8 of the interface. */
export const ACCESS_TOKEN_LIFETIME_S = 3600;

function invalid(message: string): KudosTokenError {
  return new KudosTokenError(message, { code: 'invalid_token_response', status: 502 });
}

function checkOptionalString(json: Record<string, unknown>, field: string): void {
  const value = json[field];
  if (value !== undefined && typeof value !== 'string') {
    throw invalid(`token response "${field}" must be a string when present`);
  }
}

/**
 * Narrows a parsed token response. Throws `KudosTokenError` with code `invalid_token_response`
 * naming the offending field, so that nobody is ever logged in without a user id.
 */
export function validateTokenResponse(json: unknown): KudosTokenResponse {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalid('token response must be a JSON object');
  }
  const record = json as Record<string, unknown>;
  for (const field of ['access_token', 'user']) {
    const value = record[field];
    if (typeof value !== 'string' || value === '') {
      throw invalid(`token response "${field}" must be a non-empty string`);
    }
  }
  for (const field of ['displayName', 'avatar', 'refresh_token']) checkOptionalString(record, field);
  const expiresIn = record.expires_in;
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !(expiresIn > 0))) {
    throw invalid('token response "expires_in" must be a positive number when present');
  }
  return record as KudosTokenResponse;
}

/**
 * Adds the one-hour `expires_in` of section 8 when the service did not send one, and the token
 * set as a non-enumerable `tokenSet` (so that serializing `params` does not copy the tokens twice).
 */
export function toTokenParams(response: KudosTokenResponse, tokenSet: KudosTokenSet): KudosTokenParams {
  const expiresIn = typeof response.expires_in === 'number' ? response.expires_in : ACCESS_TOKEN_LIFETIME_S;
  const params = { ...response, expires_in: expiresIn };
  Object.defineProperty(params, 'tokenSet', { value: tokenSet, enumerable: false });
  return params as KudosTokenParams;
}
