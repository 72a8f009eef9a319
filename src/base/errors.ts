/**
 * Typed errors of passport-kudos. Every error has a stable machine-readable `code`, an HTTP
 * `status` meant for Express error handlers, and `cause` when it wraps another error.
 *
 * No message and no enumerable property ever holds the client secret, an authorization code or a
 * token: values sent to the service are redacted from anything read back from it.
 *
 * @packageDocumentation
 */

/** Options shared by every passport-kudos error. */
export interface KudosErrorOptions {
  /** Stable machine-readable code, e.g. `timeout` or `INVALID_CLIENT_CRED`. */
  code: string;
  /** HTTP status an Express error handler should answer with. */
  status: number;
  cause?: unknown;
}

/**
 * Base class of every error thrown or passed to `next()` by passport-kudos.
 * Catch this one to handle all of them; switch on `code` for the details.
 */
export class KudosError extends Error {
  readonly code: string;
  /** HTTP status for the app's error handler. */
  readonly status: number;

  constructor(message: string, options: KudosErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KudosError';
    this.code = options.code;
    this.status = options.status;
  }
}

/**
 * A store that cannot be used at all (a file it cannot write, a corrupt one, a Redis that may evict its
 * keys): `store_unusable`, thrown at its start; `message` names the file or server and the cause.
 */
export function storeUnusable(message: string, cause?: unknown): KudosError {
  return new KudosError(message, { code: 'store_unusable', status: 500, cause });
}

/**
 * What an error code from outside (the browser, the service's JSON) must look like to be used as a
 * `code`: short, and nothing that needs escaping.
 */
export const SAFE_ERROR_CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** Longest `error_description` kept, in characters. */
const MAX_DESCRIPTION = 200;

/** Removes control characters (C0, DEL, C1) and cuts the text to `max` characters. */
function cleanText(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) continue;
    out += ch;
    if (out.length >= max) break;
  }
  return out.slice(0, max);
}

/**
 * The authorization page sent the user back with an `error` other than a refusal
 * (a refusal, `denied` or `access_denied`, is a Passport `fail()`, not an error).
 *
 * The `error` parameter comes from the browser, so anyone can send anything: `code` is the sent
 * value only when it matches `/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/`, else `authorization_error` (the
 * sent value is kept in the non-enumerable `rawCode`). `description` is cut to 200 characters with
 * control characters removed. Still escape both before putting them into HTML.
 *
 * @see docs/kudos-service.md#errors; RFC 6749 section 4.1.2.1
 */
export class KudosAuthorizationError extends KudosError {
  /** `error_description` sent with the error, when there was one (at most 200 characters). */
  readonly description: string | undefined;
  /** The `error` value exactly as sent (non-enumerable; may hold anything). */
  declare readonly rawCode: string;

  constructor(code: string, description: string | undefined) {
    const safe = SAFE_ERROR_CODE.test(code) ? code : 'authorization_error';
    const status = safe === 'server_error' ? 502 : safe === 'temporarily_unavailable' ? 503 : 400;
    const text = description === undefined ? undefined : cleanText(description, MAX_DESCRIPTION);
    super(`Kudos authorization failed with error "${safe}"${text ? `: ${text}` : ''}`, {
      code: safe,
      status,
    });
    this.name = 'KudosAuthorizationError';
    this.description = text;
    Object.defineProperty(this, 'rawCode', { value: code, enumerable: false });
  }
}

/** Options of {@link KudosTokenError}. */
export interface KudosTokenErrorOptions extends KudosErrorOptions {
  /** The status the token endpoint answered with, when it answered. */
  httpStatus?: number;
  /** The raw response body; kept non-enumerable so it is never serialized by accident. */
  body?: string;
}

/**
 * The token endpoint could not give a usable answer: it answered an error (`code` is the
 * service's own code, e.g. `INVALID_CLIENT_CRED`), did not answer in time (`timeout`, 504),
 * could not be reached (`network_error`), or answered something that is not a valid token
 * response (`invalid_token_response`).
 *
 * `status` is what the app should answer (502 or 504); `httpStatus` is what the service answered.
 *
 * @see docs/kudos-service.md#token-exchange, docs/kudos-service.md#errors
 */
export class KudosTokenError extends KudosError {
  /** Status the token endpoint answered with; undefined when it did not answer. */
  readonly httpStatus: number | undefined;
  /** Raw response body (non-enumerable). */
  declare readonly body: string | undefined;

  constructor(message: string, options: KudosTokenErrorOptions) {
    super(message, options);
    this.name = 'KudosTokenError';
    this.httpStatus = options.httpStatus;
    Object.defineProperty(this, 'body', { value: options.body, enumerable: false });
  }
}

/** Options of {@link KudosApiError} beyond its code and HTTP status. */
export interface KudosApiErrorOptions {
  /** Status for the app's error handler; default the status the API answered. */
  status?: number;
  cause?: unknown;
  /** Message instead of the default "Kudos API answered HTTP ..." (must name no secret). */
  message?: string;
}

/**
 * An authenticated Kudos API call failed. `code` is the service's plain-text code (`LOGIN_NEEDED`,
 * `TOKEN_EXPIRED`, `INSUFFICIENT_PERMISSION`; docs/kudos-service.md#errors) or `api_error` when it
 * sent none, with `status` and `httpStatus` the status it answered; `timeout` (504) when it did not
 * answer in time, `network_error` (502) when it could not be reached, `invalid_response` (502) when
 * a 2xx answer was not the JSON `client.json()` expects. `httpStatus` is undefined when there was
 * no answer.
 */
export class KudosApiError extends KudosError {
  readonly httpStatus: number | undefined;

  constructor(
    code: string,
    httpStatus: number | undefined,
    what: string,
    options: KudosApiErrorOptions = {},
  ) {
    super(options.message ?? `Kudos API answered HTTP ${httpStatus} ${code} for ${what}`, {
      code,
      status: options.status ?? httpStatus ?? 502,
      cause: options.cause,
    });
    this.name = 'KudosApiError';
    this.httpStatus = httpStatus;
  }
}
