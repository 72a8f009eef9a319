import { KudosTokenError } from '../base/errors.js';
import { isRecord } from '../base/guards.js';

/**
 * The profile fields of the token response besides `user`, each a string when present. The
 * profile (protocol/profile.ts) carries every one of them; the emulator must send every one (see
 * {@link KudosTokenResponseAsSent}). Adding a profile field starts here.
 */
export const PROFILE_FIELDS = ['displayName', 'avatar'] as const;

/** A name of {@link PROFILE_FIELDS}. */
export type ProfileField = (typeof PROFILE_FIELDS)[number];

interface TokenFields {
  /** Refresh token; see docs/kudos-service.md#limits for its validity. */
  refresh_token?: string;
  /** Access token, a bearer token valid for one hour. */
  access_token: string;
}

/**
 * The token response of Kudos: the profile and the tokens in one object. A real response has
 * exactly the five fields of {@link KudosTokenResponseAsSent} (no `expires_in`, `token_type` or
 * `scope`); what is read is checked field by field, and any field the service may add is kept.
 *
 * @see docs/kudos-service.md#token-response, docs/kudos-service.md#token-exchange
 */
export interface KudosTokenResponse extends TokenFields, Partial<Record<ProfileField, string>> {
  /** User ID of the authorizing user, a short lower-case handle. */
  user: string;
  [field: string]: unknown;
}

/** What the service sends, exactly (docs/kudos-service.md#token-response): the emulator answers this. */
export type KudosTokenResponseAsSent = { user: string } & Record<ProfileField, string> &
  Required<TokenFields>;

function invalid(message: string): KudosTokenError {
  return new KudosTokenError('invalid_token_response', { message });
}

function checkOptionalString(json: Record<string, unknown>, field: string): void {
  const value = json[field];
  if (value !== undefined && typeof value !== 'string') {
    throw invalid(`token response "${field}" must be a string when present`);
  }
}

/**
 * A token is sent back in a header (`Authorization: Bearer ...`) or a form: one that holds a space, a
 * control character (a newline) or a character outside visible ASCII cannot be, and would make a
 * later request fail with an error that carries it. Refused when received, never stored.
 */
const TOKEN_TEXT = /^[\x21-\x7E]+$/;

function checkTokenText(json: Record<string, unknown>, field: string): void {
  const value = json[field];
  if (typeof value === 'string' && !TOKEN_TEXT.test(value)) {
    throw invalid(
      `token response "${field}" holds a character a header cannot carry (a space, a control character or non-ASCII)`,
    );
  }
}

/**
 * Narrows a parsed token response. Throws `KudosTokenError` with code `invalid_token_response`
 * naming the offending field, so that nobody is ever logged in without a user id.
 */
export function validateTokenResponse(json: unknown): KudosTokenResponse {
  return validateAnswer(json, ['access_token', 'user']) as KudosTokenResponse;
}

/**
 * A refresh answer: like a token response, but it may lack `user` and the profile fields, and may
 * repeat the refresh token (observed, docs/kudos-service.md#refresh-and-revocation).
 */
interface KudosRefreshResponse extends TokenFields, Partial<Record<ProfileField, string>> {
  user?: string;
  [field: string]: unknown;
}

/** Narrows a parsed refresh answer: `access_token` is required, the rest checked when present. */
export function validateRefreshResponse(json: unknown): KudosRefreshResponse {
  return validateAnswer(json, ['access_token']) as KudosRefreshResponse;
}

function validateAnswer(json: unknown, required: readonly string[]): Record<string, unknown> {
  if (!isRecord(json)) {
    throw invalid('token response must be a JSON object');
  }
  const record = json as Record<string, unknown>;
  if (!required.includes('user')) checkOptionalString(record, 'user');
  for (const field of required) {
    const value = record[field];
    if (typeof value !== 'string' || value === '') {
      throw invalid(`token response "${field}" must be a non-empty string`);
    }
  }
  for (const field of [...PROFILE_FIELDS, 'refresh_token']) checkOptionalString(record, field);
  for (const field of ['access_token', 'refresh_token']) checkTokenText(record, field);
  const expiresIn = record.expires_in;
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !(expiresIn > 0))) {
    throw invalid('token response "expires_in" must be a positive number when present');
  }
  return record;
}
