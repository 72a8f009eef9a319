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
  /** The error this one wraps. */
  cause?: unknown;
}

/**
 * Base class of every error thrown or passed to `next()` by passport-kudos.
 * Catch this one to handle all of them; switch on `code` for the details.
 */
export class KudosError extends Error {
  /** Stable machine-readable code. */
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
 * The authorization page sent the user back with an `error` other than a refusal
 * (a refusal, `denied` or `access_denied`, is a Passport `fail()`, not an error).
 *
 * @see ../shared/spec/interface.md section 4.1 and 7; RFC 6749 section 4.1.2.1
 */
export class KudosAuthorizationError extends KudosError {
  /** `error_description` sent with the error, when there was one. */
  readonly description: string | undefined;

  constructor(code: string, description: string | undefined) {
    const status = code === 'server_error' ? 502 : code === 'temporarily_unavailable' ? 503 : 400;
    super(`Kudos authorization failed with error "${code}"${description ? `: ${description}` : ''}`, {
      code,
      status,
    });
    this.name = 'KudosAuthorizationError';
    this.description = description;
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
 * @see ../shared/spec/interface.md section 4.2 and 7; ../shared/spec/facts.md "Errors"
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

/**
 * An authenticated Kudos API call answered an error. `code` is the service's plain-text code
 * (`LOGIN_NEEDED`, `TOKEN_EXPIRED`, `INSUFFICIENT_PERMISSION`, facts.md) or `api_error` when it
 * sent none; `status` and `httpStatus` are the status it answered.
 */
export class KudosApiError extends KudosError {
  readonly httpStatus: number;

  constructor(code: string, httpStatus: number, what: string) {
    super(`Kudos API answered HTTP ${httpStatus} ${code} for ${what}`, { code, status: httpStatus });
    this.name = 'KudosApiError';
    this.httpStatus = httpStatus;
  }
}
