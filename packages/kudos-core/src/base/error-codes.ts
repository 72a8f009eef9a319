/** The error class that carries a code. */
export type KudosErrorClassName =
  | 'KudosError'
  | 'KudosAuthorizationError'
  | 'KudosTokenError'
  | 'KudosApiError'
  | 'KudosNotificationError';

/** One row of {@link KUDOS_ERROR_CODES}. */
export interface KudosErrorCodeInfo {
  readonly code: string;
  /** The `status` an app should answer with; `'as answered'` when it is the service's own status. */
  readonly status: number | 'as answered';
  /** The class of the error (every one extends `KudosError`). */
  readonly error: KudosErrorClassName;
  /** What went wrong, and what to do. */
  readonly meaning: string;
}

/**
 * Every error code the Kudos packages give (its `code` property), with the status it carries, the
 * class that carries it, and what it means; a code two classes carry has a row for each. Every
 * class's constructor takes its codes from here (`KudosErrorCodeOf`), and its status. The error
 * table of docs/reference.md is made from it. Codes in upper case are the service's own words
 * (docs/kudos-service.md#errors); a word the service sends that is not here becomes the class's
 * catch-all code (`token_endpoint_error`, `api_error`), the word kept in `serviceCode`.
 */
export const KUDOS_ERROR_CODES = [
  // Sign-in (strategy)
  {
    code: 'invalid_request',
    status: 400,
    error: 'KudosError',
    meaning:
      'a malformed callback: a callback parameter (`code` or an alias, `state`, `error`, `error_description`, `error_uri`) given twice, as an array or object, empty or too long, or a callback without a code; the message names the parameter. Nothing is sent to the token endpoint',
  },
  {
    code: 'invalid_callback_url',
    status: 400,
    error: 'KudosError',
    meaning:
      "the request's Host (or trusted X-Forwarded-Host/-Proto) header makes the callback URL unparsable",
  },
  {
    code: 'used_states_full',
    status: 503,
    error: 'KudosError',
    meaning:
      "`KudosCookieStateStore`'s default memory of used states holds 100,000 live ones (a flood of sign-in callbacks): the callback is refused rather than a used state forgotten before it expires (a replay would sign someone in again). Retry later; several instances, or more sign-ins: pass `usedStates` (`RedisUsedStates`)",
  },
  {
    code: 'internal_error',
    status: 500,
    error: 'KudosError',
    meaning: 'something unexpected failed inside authenticate(); the cause is in `cause`',
  },
  // The authorization page's `error` (RFC 6749 section 4.1.2.1). A refusal (`denied`, `access_denied`)
  // is a Passport fail(), not an error.
  {
    code: 'invalid_request',
    status: 400,
    error: 'KudosAuthorizationError',
    meaning: 'the authorization request was malformed (a missing or repeated parameter)',
  },
  {
    code: 'unauthorized_client',
    status: 400,
    error: 'KudosAuthorizationError',
    meaning: 'this client may not ask for an authorization code',
  },
  {
    code: 'unsupported_response_type',
    status: 400,
    error: 'KudosAuthorizationError',
    meaning: 'the service does not give an authorization code this way',
  },
  {
    code: 'invalid_scope',
    status: 400,
    error: 'KudosAuthorizationError',
    meaning: 'the requested scope is unknown or malformed',
  },
  {
    code: 'server_error',
    status: 502,
    error: 'KudosAuthorizationError',
    meaning: 'the authorization page failed on its side',
  },
  {
    code: 'temporarily_unavailable',
    status: 503,
    error: 'KudosAuthorizationError',
    meaning: 'the authorization page is overloaded or down for maintenance; try again later',
  },
  {
    code: 'authorization_error',
    status: 400,
    error: 'KudosAuthorizationError',
    meaning:
      'the authorization page sent back an `error` that is none of the codes above (the value as sent, whatever it holds, is in the non-enumerable `rawCode`)',
  },
  {
    code: 'timeout',
    status: 504,
    error: 'KudosTokenError',
    meaning: 'the token endpoint did not answer within `timeoutMs`',
  },
  {
    code: 'network_error',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'the token endpoint could not be reached',
  },
  {
    code: 'invalid_token_response',
    status: 502,
    error: 'KudosTokenError',
    meaning:
      'the token endpoint answered 2xx with something that is not a valid token response (the message names the field)',
  },
  {
    code: 'token_endpoint_error',
    status: 502,
    error: 'KudosTokenError',
    meaning:
      'the token endpoint answered an error without a code of this table (one it sent is in `serviceCode`)',
  },
  {
    code: 'MISSING_CLIENT_INFO',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'the service says client_id or client_secret is missing (`httpStatus` 400)',
  },
  {
    code: 'INVALID_CLIENT_CRED',
    status: 502,
    error: 'KudosTokenError',
    meaning:
      'the service says the client ID or secret is wrong (`httpStatus` 400): check clientID and clientSecret',
  },
  {
    code: 'BODY_PARSE_FAILED',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'the service could not parse the token request (`httpStatus` 400)',
  },
  {
    code: 'MISSING_TOKEN',
    status: 502,
    error: 'KudosTokenError',
    meaning: "the emulator's word for a revocation without `token` (the service's own word is not known)",
  },
  {
    code: 'LOGIN_NEEDED',
    status: 502,
    error: 'KudosTokenError',
    meaning: "the service's word (see KudosApiError) answered by the token or revocation endpoint",
  },
  {
    code: 'TOKEN_EXPIRED',
    status: 502,
    error: 'KudosTokenError',
    meaning: "the service's word (see KudosApiError) answered by the token or revocation endpoint",
  },
  {
    code: 'INSUFFICIENT_PERMISSION',
    status: 502,
    error: 'KudosTokenError',
    meaning: "the service's word (see KudosApiError) answered by the token or revocation endpoint",
  },
  {
    code: 'invalid_request',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'RFC 6749 section 5.2: the token request was malformed',
  },
  {
    code: 'invalid_client',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'RFC 6749 section 5.2: the client ID or secret is wrong: check clientID and clientSecret',
  },
  {
    code: 'invalid_grant',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'RFC 6749 section 5.2: the authorization code or refresh token is invalid, expired or spent',
  },
  {
    code: 'unauthorized_client',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'RFC 6749 section 5.2: this client may not use this grant type',
  },
  {
    code: 'unsupported_grant_type',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'RFC 6749 section 5.2: the token endpoint does not support this grant type',
  },
  {
    code: 'invalid_scope',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'RFC 6749 section 5.2: the requested scope is invalid or exceeds what was granted',
  },
  // Tokens
  {
    code: 'reauth_required',
    status: 401,
    error: 'KudosTokenError',
    meaning:
      'no usable refresh token (refused, revoked, replaced by a newer one, or none stored): the user must sign in again',
  },
  {
    code: 'profile_url_missing',
    status: 500,
    error: 'KudosError',
    meaning: 'userProfile() was called outside a sign-in by a strategy without `baseURL` or `profileURL`',
  },
  {
    code: 'revoke_url_missing',
    status: 500,
    error: 'KudosError',
    meaning: 'strategy.revoke() needs the `revokeURL` option',
  },
  // API client
  {
    code: 'LOGIN_NEEDED',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: 'no or invalid bearer token (401)',
  },
  {
    code: 'TOKEN_EXPIRED',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: 'the access token expired (401); the client refreshes once and retries before giving this',
  },
  {
    code: 'INSUFFICIENT_PERMISSION',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: 'the token lacks the scope the operation needs (403)',
  },
  {
    code: 'MISSING_CLIENT_INFO',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: "the service's word (see KudosTokenError) answered by the API",
  },
  {
    code: 'INVALID_CLIENT_CRED',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: "the service's word (see KudosTokenError) answered by the API",
  },
  {
    code: 'BODY_PARSE_FAILED',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: "the service's word (see KudosTokenError) answered by the API",
  },
  {
    code: 'MISSING_TOKEN',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: "the service's word (see KudosTokenError) answered by the API",
  },
  {
    code: 'api_error',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: 'the API answered an error without a code of this table (one it sent is in `serviceCode`)',
  },
  {
    code: 'timeout',
    status: 504,
    error: 'KudosApiError',
    meaning: 'the API did not answer (or finish its body) within `timeoutMs`',
  },
  {
    code: 'network_error',
    status: 502,
    error: 'KudosApiError',
    meaning: 'the API could not be reached',
  },
  {
    code: 'invalid_response',
    status: 502,
    error: 'KudosApiError',
    meaning:
      'a 2xx answer that is not JSON, or not the JSON expected (`client.json()` with a guard, a profile, a transaction history)',
  },
  {
    code: 'endpoint_gone',
    status: 502,
    error: 'KudosApiError',
    meaning:
      'a lookup of the service or of the chain answered 404 that is not its documented "not found" (an HTML page: a removed route, as the service removed `/tx/**` and its chain proxy in 2026); the message names the URL. `reconcileChain()` by `baseURL` rejects with it: set `restURL` to a chain node\'s REST interface',
  },
  {
    code: 'response_too_large',
    status: 502,
    error: 'KudosApiError',
    meaning: "a 2xx answer of the API is larger than the client's `maxResponseBytes` (default 4 MiB)",
  },
  // Stores (memory, SQLite, Redis, your own)
  {
    code: 'store_unavailable',
    status: 503,
    error: 'KudosError',
    meaning:
      'a store failed or did not answer in time (a Redis command past `commandTimeoutMs`, a locked SQLite file): retry later; a receiver answers a notification it meets with 503 and Retry-After, the sender retries',
  },
  {
    code: 'lock_timeout',
    status: 503,
    error: 'KudosError',
    meaning: 'the refresh lock could not be taken in time (another instance holds it)',
  },
  {
    code: 'store_unusable',
    status: 500,
    error: 'KudosError',
    meaning:
      "thrown by a store at its start (construction, or a Redis store's first call or `ready()`) that cannot do its job: a SQLite file that cannot be opened or written (a read-only folder or file) or fails SQLite's `quick_check` (corrupt); a Redis whose `maxmemory-policy` may evict keys (unless `acceptEviction`), or that refuses writes (a read-only replica, an ACL); the message names the file or server and the cause",
  },
  // Webhook receiver (kudos-payments), answered as `{ error, code, path }`
  {
    code: 'method_not_allowed',
    status: 405,
    error: 'KudosNotificationError',
    meaning: 'the request is not a POST (Allow: POST)',
  },
  {
    code: 'invalid_secret',
    status: 401,
    error: 'KudosNotificationError',
    meaning: 'the webhook secret is missing or wrong (URL `?token=`, last path segment, or Basic password)',
  },
  {
    code: 'unsupported_media_type',
    status: 415,
    error: 'KudosNotificationError',
    meaning: 'Content-Type is not JSON in UTF-8',
  },
  {
    code: 'payload_too_large',
    status: 413,
    error: 'KudosNotificationError',
    meaning: 'the body is larger than `maxBodyBytes`',
  },
  {
    code: 'invalid_json',
    status: 400,
    error: 'KudosNotificationError',
    meaning: 'the body is empty, cut off, not UTF-8 or not JSON',
  },
  {
    code: 'not_an_object',
    status: 400,
    error: 'KudosNotificationError',
    meaning: 'the body is JSON but not an object',
  },
  {
    code: 'body_already_consumed',
    status: 500,
    error: 'KudosNotificationError',
    meaning:
      'another middleware read the body and kept nothing: mount the receiver before it, or after express.json()',
  },
  {
    code: 'missing_field',
    status: 422,
    error: 'KudosNotificationError',
    meaning:
      'the body has no `tx` object, or `tx` lacks `txHash`, `status` or `amount` (`path` names it); no other field is required',
  },
  {
    code: 'invalid_amount',
    status: 422,
    error: 'KudosNotificationError',
    meaning:
      '`tx.amount` is not a coin (or list of coins of one denom) with a positive whole number of the smallest unit (`path` names it)',
  },
  {
    code: 'invalid_tx_hash',
    status: 422,
    error: 'KudosNotificationError',
    meaning: '`tx.txHash` is not 64 hexadecimal characters',
  },
  {
    code: 'invalid_status',
    status: 422,
    error: 'KudosNotificationError',
    meaning: '`tx.status` is not pending, success, fail or timeout',
  },
  {
    code: 'unexpected_denom',
    status: 422,
    error: 'KudosNotificationError',
    meaning: '`tx.amount.denom` is not the `denom` option',
  },
  {
    code: 'too_deep',
    status: 422,
    error: 'KudosNotificationError',
    meaning: 'the body is nested too deeply',
  },
  {
    code: 'in_progress',
    status: 409,
    error: 'KudosNotificationError',
    meaning:
      'another run holds this notification (a delivery still running, or one whose process stopped): its lease ends within leaseMs; retry (Retry-After; redrive() tries again by itself then)',
  },
  {
    code: 'kept_unreadable',
    status: 500,
    error: 'KudosNotificationError',
    meaning:
      "told to `onError`: a kept record the store cannot read (edited by hand, another program's key) is skipped by `unprocessed()` and `redrive()` (the others are listed and redriven), and replaced as if absent by the next delivery of its payment (which is processed)",
  },
  {
    code: 'body_timeout',
    status: 408,
    error: 'KudosNotificationError',
    meaning: 'the body was not received within `bodyTimeoutMs` (10 s by default); the sender retries',
  },
  {
    code: 'not_to_wallet',
    status: 422,
    error: 'KudosNotificationError',
    meaning:
      "told to `onError` once by `kudosPayments()`: an authenticated notification of a payment to the shop's Kudos user (`shopUser`) that the chain shows reaching none of `wallet` (the message names the addresses it paid: is `wallet` your wallet address?); never an answer: the delivery is answered 200 and the payment is a `not_to_wallet` exception",
  },
  {
    code: 'unconfirmed',
    status: 422,
    error: 'KudosNotificationError',
    meaning:
      "the chain's record contradicts the notification (another amount, denomination, recipient or hash, a failed transaction reported as a success): it decides nothing. Its key stays open for the real delivery, `reconcileChain()` and `redrive()`; an authenticated one is kept (`unprocessed()`, this code in its `lastError`) for the operator",
  },
  {
    code: 'confirmation_unavailable',
    status: 503,
    error: 'KudosNotificationError',
    meaning: 'the confirmer (chain lookup) failed; retry (Retry-After)',
  },
  {
    code: 'endpoint_gone',
    status: 503,
    error: 'KudosNotificationError',
    meaning:
      "the confirmer's chain lookup answered 404 that is no chain's answer (an HTML page: the chain's REST interface is not at that URL, as the service's `{baseURL}/cosmos/lcd` proxy is gone since 2026-05-21); the message names the LCD. Told once to `onError` and said by `status()` (`lookupOk: false`); the notification is kept for `redrive()`. Set `restURL` to a chain node's REST interface",
  },
  {
    code: 'handler_timeout',
    status: 503,
    error: 'KudosNotificationError',
    meaning:
      'the handler did not finish within `handlerTimeoutMs`; it goes on under its lease; retry (Retry-After)',
  },
  {
    code: 'handler_failed',
    status: 500,
    error: 'KudosNotificationError',
    meaning: 'the handler (or confirmer) threw; the key is released, so the redelivery is processed',
  },
] as const satisfies readonly KudosErrorCodeInfo[];

type Row = (typeof KUDOS_ERROR_CODES)[number];

/** A code of {@link KUDOS_ERROR_CODES}. */
export type KudosErrorCode = Row['code'];

/** The codes one class carries: its rows of {@link KUDOS_ERROR_CODES}. */
export type KudosErrorCodeOf<Kind extends KudosErrorClassName> = Extract<Row, { error: Kind }>['code'];

/** Each row by its class and code (a code may be carried by two classes, with a status each). */
const ROWS: ReadonlyMap<string, Row> = new Map(
  KUDOS_ERROR_CODES.map((row) => [`${row.error} ${row.code}`, row]),
);

/** Whether `code` is one of the codes `kind` carries (a word from outside is checked by this). */
export function isCodeOf<Kind extends KudosErrorClassName>(
  kind: Kind,
  code: string,
): code is KudosErrorCodeOf<Kind> {
  return ROWS.has(`${kind} ${code}`);
}

/**
 * The meaning of `kind`'s `code` in the table: the message of an error made without one.
 *
 * @internal
 */
export function meaningOf(kind: KudosErrorClassName, code: string): string {
  return ROWS.get(`${kind} ${code}`)?.meaning ?? code;
}

/**
 * The status of `kind`'s `code`, from the table: for a row whose status is `'as answered'`, the
 * status the service answered (502 when it did not answer). A code of no row (JavaScript that
 * passed one) is 500: an error's constructor does not throw, or it would hide the error.
 *
 * @internal
 */
export function statusOf(kind: KudosErrorClassName, code: string, httpStatus?: number): number {
  const row = ROWS.get(`${kind} ${code}`);
  if (row === undefined) return 500;
  return row.status === 'as answered' ? (httpStatus ?? 502) : row.status;
}
