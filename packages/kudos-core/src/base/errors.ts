/**
 * Typed errors of the Kudos packages (passport-kudos, kudos-payments, kudos-emulator). Every error has a stable machine-readable `code`, an HTTP
 * `status` meant for Express error handlers, and `cause` when it wraps another error.
 *
 * No message and no enumerable property ever holds the client secret, an authorization code or a
 * token: values sent to the service are redacted from anything read back from it.
 *
 * @packageDocumentation
 */

import {
  isCodeOf,
  type KudosErrorClassName,
  type KudosErrorCode,
  type KudosErrorCodeOf,
  meaningOf,
  statusOf,
} from './error-codes.js';

/** Options of every Kudos error's constructor (each class adds its own). */
export interface KudosErrorOptions {
  /** What went wrong, for people; never a secret. Default: the code's meaning in the error table. */
  message?: string;
  cause?: unknown;
}

/**
 * What every class hands its base: its name (which rows of the table are its own), the code, and
 * the rest.
 *
 * @internal
 */
interface KudosErrorInit extends KudosErrorOptions {
  kind: KudosErrorClassName;
  code: string;
  httpStatus?: number | undefined;
}

/** The brand every copy of kudos-core puts on its errors (see `KudosError[Symbol.hasInstance]`). */
const KUDOS_ERROR = Symbol.for('kudos-core.KudosError');

function isInit(value: unknown): value is KudosErrorInit {
  return typeof value === 'object' && value !== null && 'kind' in value && 'code' in value;
}

/**
 * Base class of every error thrown or passed to `next()` by a Kudos package.
 * Catch this one to handle all of them; switch on `code` (a code of `KUDOS_ERROR_CODES`) for the
 * details. `status` is the code's status in that table.
 */
export class KudosError extends Error {
  /**
   * `instanceof KudosError` holds for a KudosError of any copy of kudos-core in the process (an app
   * whose packages depend on two versions of it installs two): the base class is told by a brand
   * every copy shares (`Symbol.for`), the subclasses as usual.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class asked (a subclass inherits this method)
    if (this !== KudosError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[KUDOS_ERROR] === true
    );
  }

  readonly code: KudosErrorCode;
  /** HTTP status for the app's error handler, from the error table. */
  readonly status: number;

  constructor(code: KudosErrorCodeOf<'KudosError'>, options?: KudosErrorOptions);
  /** @internal */
  constructor(init: KudosErrorInit);
  constructor(first: string | KudosErrorInit, second?: KudosErrorOptions) {
    const init: KudosErrorInit = isInit(first) ? first : { ...second, kind: 'KudosError', code: first };
    const message = init.message ?? meaningOf(init.kind, init.code);
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = init.kind;
    this.code = init.code as KudosErrorCode;
    this.status = statusOf(init.kind, init.code, init.httpStatus);
  }

  static {
    // Not enumerable: no error's own keys, and no JSON of one, show it.
    Object.defineProperty(KudosError.prototype, KUDOS_ERROR, { value: true });
  }
}

/**
 * A store that failed or did not answer in time: `store_unavailable` (503), retry later, whichever
 * store (memory, SQLite, Redis, your own) and whoever called it (a notification, `createOrder()`).
 */
export function storeUnavailable(message: string, cause?: unknown): KudosStoreUnavailable {
  return new KudosError('store_unavailable', { message, cause }) as KudosStoreUnavailable;
}

/** A store's failure, as {@link storeUnavailable} makes it: `store_unavailable` (503), retry later. */
export type KudosStoreUnavailable = KudosError & { readonly code: 'store_unavailable' };

/**
 * A store that cannot be used at all (a file it cannot write, a corrupt one, a Redis that may evict its
 * keys): `store_unusable`, thrown at its start; `message` names the file or server and the cause.
 */
export function storeUnusable(message: string, cause?: unknown): KudosError {
  return new KudosError('store_unusable', { message, cause });
}

/**
 * What an error code from outside (the browser, the service's JSON) must look like to be used as a
 * `code`: short, and nothing that needs escaping.
 */
export const SAFE_ERROR_CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** Longest `error_description` kept, in characters. */
const MAX_DESCRIPTION = 200;

/**
 * Whether a character may not reach a message or a log line as it is: a control character (C0, DEL,
 * C1), a line or paragraph separator (U+2028, U+2029: a new log line to some readers), or a
 * bidirectional control (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which can make a
 * line read otherwise than it is written ("Trojan Source").
 */
function unsafe(c: number): boolean {
  return (
    c < 0x20 ||
    (c >= 0x7f && c <= 0x9f) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x061c ||
    c === 0x200e ||
    c === 0x200f ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2066 && c <= 0x2069)
  );
}

/** A service's text made safe for a message: the {@link unsafe} characters removed, cut to `max`. */
export function cleanText(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    if (unsafe(ch.codePointAt(0) ?? 0)) continue;
    out += ch;
    if (out.length >= max) break;
  }
  return out.slice(0, max);
}

/** Options of {@link KudosAuthorizationError}. */
export interface KudosAuthorizationErrorOptions {
  /** The callback's `error_description`, as sent. */
  description?: string | undefined;
}

/**
 * The authorization page sent the user back with an `error` other than a refusal
 * (a refusal, `denied` or `access_denied`, is a Passport `fail()`, not an error).
 *
 * The constructor takes the `error` parameter as the browser sent it, and anyone can send anything:
 * `code` is that value when it is one of RFC 6749's codes in the error table, else
 * `authorization_error` (the sent value is kept in the non-enumerable `rawCode`). `description` is
 * cut to 200 characters with control characters removed. Still escape both before putting them into
 * HTML.
 *
 * @see docs/kudos-service.md#errors; RFC 6749 section 4.1.2.1
 */
export class KudosAuthorizationError extends KudosError {
  declare readonly code: KudosErrorCodeOf<'KudosAuthorizationError'>;
  /** `error_description` sent with the error, when there was one (at most 200 characters). */
  readonly description: string | undefined;
  /** The `error` value exactly as sent (non-enumerable; may hold anything). */
  declare readonly rawCode: string;

  constructor(error: string, options?: KudosAuthorizationErrorOptions) {
    const described = options?.description;
    const code = isCodeOf('KudosAuthorizationError', error) ? error : 'authorization_error';
    const text = described === undefined ? undefined : cleanText(described, MAX_DESCRIPTION);
    super({
      kind: 'KudosAuthorizationError',
      code,
      message: `Kudos authorization failed with error "${code}"${text ? `: ${text}` : ''}`,
    });
    this.description = text;
    Object.defineProperty(this, 'rawCode', { value: error, enumerable: false });
  }
}

/** Options of {@link KudosTokenError}. */
export interface KudosTokenErrorOptions extends KudosErrorOptions {
  /** The status the token endpoint answered with, when it answered. */
  httpStatus?: number | undefined;
  /** The word the token endpoint sent, when it is none of the table's codes (`token_endpoint_error`). */
  serviceCode?: string | undefined;
  /** The raw response body; kept non-enumerable so it is never serialized by accident. */
  body?: string | undefined;
}

/**
 * The token endpoint could not give a usable answer: it answered an error (`code` is the
 * service's own word, e.g. `INVALID_CLIENT_CRED`, or RFC 6749's, e.g. `invalid_grant`), did not
 * answer in time (`timeout`, 504), could not be reached (`network_error`), or answered something
 * that is not a valid token response (`invalid_token_response`).
 *
 * `status` is what the app should answer (from the error table: 502, 504, or 401 for
 * `reauth_required`); `httpStatus` is what the service answered.
 *
 * @see docs/kudos-service.md#token-exchange, docs/kudos-service.md#errors
 */
export class KudosTokenError extends KudosError {
  declare readonly code: KudosErrorCodeOf<'KudosTokenError'>;
  /** Status the token endpoint answered with; undefined when it did not answer. */
  readonly httpStatus: number | undefined;
  /** The word the token endpoint sent when it is not in the table (then `code` is `token_endpoint_error`). */
  readonly serviceCode: string | undefined;
  /** Raw response body (non-enumerable). */
  declare readonly body: string | undefined;

  constructor(code: KudosErrorCodeOf<'KudosTokenError'>, options: KudosTokenErrorOptions = {}) {
    super({ ...options, kind: 'KudosTokenError', code });
    this.httpStatus = options.httpStatus;
    this.serviceCode = options.serviceCode;
    Object.defineProperty(this, 'body', { value: options.body, enumerable: false });
  }
}

/** Options of {@link KudosApiError}. */
export interface KudosApiErrorOptions extends KudosErrorOptions {
  /** The status the API answered with, when it answered. */
  httpStatus?: number | undefined;
  /** The word the API sent, when it is none of the table's codes (`api_error`). */
  serviceCode?: string | undefined;
}

/**
 * A Kudos API call failed. `code` is the service's word (`LOGIN_NEEDED`, `TOKEN_EXPIRED`,
 * `INSUFFICIENT_PERMISSION`; docs/kudos-service.md#errors), with `status` and `httpStatus` the status
 * it answered, or `api_error` when it sent none of the table's words (one it sent is in
 * `serviceCode`); `timeout` (504) when it did not answer in time, `network_error` (502) when it
 * could not be reached, `response_too_large` (502), or `invalid_response` (502) when a 2xx answer was
 * not the JSON expected. `httpStatus` is undefined when there was no answer.
 */
export class KudosApiError extends KudosError {
  declare readonly code: KudosErrorCodeOf<'KudosApiError'>;
  readonly httpStatus: number | undefined;
  /** The word the API sent when it is not in the table (then `code` is `api_error`). */
  readonly serviceCode: string | undefined;

  constructor(code: KudosErrorCodeOf<'KudosApiError'>, options: KudosApiErrorOptions = {}) {
    super({ ...options, kind: 'KudosApiError', code });
    this.httpStatus = options.httpStatus;
    this.serviceCode = options.serviceCode;
  }
}
