import { isRecord } from './guards.js';

/**
 * The service's own error body: one upper-case word in plain text, e.g. `INVALID_CLIENT_CRED`
 * (docs/kudos-service.md#errors).
 */
const PLAIN_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
/** An OAuth-style JSON error code (RFC 6749 section 5.2), e.g. `invalid_grant`. */
const JSON_CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** What an error answer of the service says. */
export interface ServiceError {
  code: string;
  description?: string;
}

/**
 * Reads the error code of an error answer of the token endpoint or the API, in either shape: the
 * service's plain-text word, or standard OAuth JSON `{ "error": ..., "error_description": ... }`.
 * Anything else (HTML, a lower-case sentence, a code with other characters) has no readable code:
 * undefined. One rule for both endpoints: the stricter of the two that were here before.
 */
export function readServiceError(body: string): ServiceError | undefined {
  const text = body.trim();
  if (PLAIN_CODE.test(text)) return { code: text };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(json) || typeof json.error !== 'string' || !JSON_CODE.test(json.error)) return undefined;
  const description = typeof json.error_description === 'string' ? json.error_description : undefined;
  return description === undefined ? { code: json.error } : { code: json.error, description };
}
