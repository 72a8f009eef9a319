import type { KudosErrorCodeOf } from '../base/error-codes.js';
import { SAFE_ERROR_CODE } from '../base/errors.js';
import { isRecord } from '../base/guards.js';

/**
 * The service's error answers (docs/kudos-service.md#errors): one upper-case word in plain text, with
 * the status it comes with. `observed: false` marks words the emulator answers where the service's
 * own answer is not known (in the same style). The emulator answers from this table, the library
 * compares against it: a word is written once.
 */
export const SERVICE_ERRORS = {
  MISSING_CLIENT_INFO: { status: 400, observed: true },
  INVALID_CLIENT_CRED: { status: 400, observed: true },
  BODY_PARSE_FAILED: { status: 400, observed: true },
  LOGIN_NEEDED: { status: 401, observed: true },
  TOKEN_EXPIRED: { status: 401, observed: true },
  INSUFFICIENT_PERMISSION: { status: 403, observed: true },
  // The emulator's words for what RFC 6749 names: read as the RFC's code (`invalid_grant`), the word
  // kept in `serviceCode`, so that the error table has one code for each thing, not case twins.
  INVALID_GRANT: { status: 400, observed: false, code: 'invalid_grant' },
  UNSUPPORTED_GRANT_TYPE: { status: 400, observed: false, code: 'unsupported_grant_type' },
  MISSING_TOKEN: { status: 400, observed: false },
  // Each word without a `code` is a code of both classes that read the service's answers, and each
  // `code` one of the token endpoint's (the compiler checks both).
} as const satisfies Record<
  string,
  { status: number; observed: boolean; code?: KudosErrorCodeOf<'KudosTokenError'> }
> &
  Partial<Record<ServiceWordCode, unknown>>;

/** The error table's code for a word the service answered: the RFC's where the word names one of its codes. */
export function codeOfWord(word: string): string {
  const entry: { code?: string } | undefined = (SERVICE_ERRORS as Record<string, { code?: string }>)[word];
  return entry?.code ?? word;
}

/** The codes both the token endpoint's and the API's errors may carry: where the service's words must be. */
type ServiceWordCode = KudosErrorCodeOf<'KudosTokenError'> & KudosErrorCodeOf<'KudosApiError'>;

/** A word of {@link SERVICE_ERRORS}. */
export type ServiceErrorWord = keyof typeof SERVICE_ERRORS;

/** The words that mean the client's own credentials or request are wrong (signing in again would not help). */
export const CLIENT_ERROR_WORDS: ReadonlySet<string> = new Set<ServiceErrorWord>([
  'MISSING_CLIENT_INFO',
  'INVALID_CLIENT_CRED',
  'BODY_PARSE_FAILED',
]);

/** The service's plain-text error body. */
const PLAIN_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

interface ServiceError {
  code: string;
  description?: string;
}

/**
 * Reads the error code of an error answer of the token endpoint or the API, in either shape: the
 * service's plain-text word, or standard OAuth JSON `{ "error": ..., "error_description": ... }`
 * (RFC 6749 section 5.2). Anything else (HTML, a lower-case sentence, a code with other characters)
 * has no readable code: undefined.
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
  if (!isRecord(json) || typeof json.error !== 'string' || !SAFE_ERROR_CODE.test(json.error))
    return undefined;
  const description = typeof json.error_description === 'string' ? json.error_description : undefined;
  return description === undefined ? { code: json.error } : { code: json.error, description };
}
