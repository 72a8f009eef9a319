/** The error class that carries a code. */
export type KudosErrorClassName =
  | 'KudosError'
  | 'KudosAuthorizationError'
  | 'KudosTokenError'
  | 'KudosApiError'
  | 'KudosWebhookError';

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
 * Every error code passport-kudos gives (its `code` property), with the status it carries, the
 * class that carries it, and what it means. The error table of docs/reference.md is checked against it.
 * Codes in upper case are the service's own (docs/kudos-service.md#errors), passed through.
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
    code: 'internal_error',
    status: 500,
    error: 'KudosError',
    meaning: 'something unexpected failed inside authenticate(); the cause is in `cause`',
  },
  {
    code: 'authorization_error',
    status: 400,
    error: 'KudosAuthorizationError',
    meaning:
      'the authorization page sent back an `error` that is not a safe code (the value is in the non-enumerable `rawCode`); a safe one is the code itself (`server_error` 502, `temporarily_unavailable` 503, others 400)',
  },
  {
    code: 'timeout',
    status: 504,
    error: 'KudosTokenError',
    meaning: 'the token endpoint (or, as KudosApiError, the API) did not answer within `timeoutMs`',
  },
  {
    code: 'network_error',
    status: 502,
    error: 'KudosTokenError',
    meaning: 'the token endpoint (or, as KudosApiError, the API) could not be reached',
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
    meaning: 'the token endpoint answered an error without a readable code',
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
    meaning: 'userProfile() was called outside a login by a strategy without `baseURL` or `profileURL`',
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
    code: 'api_error',
    status: 'as answered',
    error: 'KudosApiError',
    meaning: 'the API answered an error without a readable code',
  },
  {
    code: 'invalid_response',
    status: 502,
    error: 'KudosApiError',
    meaning: '`client.json()` got a 2xx answer that is not JSON',
  },
  // Scale-out (passport-kudos/redis)
  {
    code: 'response_too_large',
    status: 502,
    error: 'KudosApiError',
    meaning: "a 2xx answer of the API is larger than the client's `maxResponseBytes` (default 4 MiB)",
  },
  {
    code: 'redis_unavailable',
    status: 503,
    error: 'KudosError',
    meaning: 'a Redis command failed or did not answer within `commandTimeoutMs`',
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
  // Webhook receiver (passport-kudos/webhook), answered as `{ error, code, path }`
  {
    code: 'method_not_allowed',
    status: 405,
    error: 'KudosWebhookError',
    meaning: 'the request is not a POST (Allow: POST)',
  },
  {
    code: 'invalid_secret',
    status: 401,
    error: 'KudosWebhookError',
    meaning: 'the webhook secret is missing or wrong (URL `?token=`, last path segment, or Basic password)',
  },
  {
    code: 'unsupported_media_type',
    status: 415,
    error: 'KudosWebhookError',
    meaning: 'Content-Type is not JSON in UTF-8',
  },
  {
    code: 'payload_too_large',
    status: 413,
    error: 'KudosWebhookError',
    meaning: 'the body is larger than `maxBodyBytes`',
  },
  {
    code: 'invalid_json',
    status: 400,
    error: 'KudosWebhookError',
    meaning: 'the body is empty, cut off, not UTF-8 or not JSON',
  },
  {
    code: 'not_an_object',
    status: 400,
    error: 'KudosWebhookError',
    meaning: 'the body is JSON but not an object',
  },
  {
    code: 'body_already_consumed',
    status: 500,
    error: 'KudosWebhookError',
    meaning:
      'another middleware read the body and kept nothing: mount the receiver before it, or after express.json()',
  },
  {
    code: 'missing_field',
    status: 422,
    error: 'KudosWebhookError',
    meaning:
      'the body has no `tx` object, or `tx` lacks `txHash`, `status` or `amount` (`path` names it); no other field is required',
  },
  {
    code: 'invalid_amount',
    status: 422,
    error: 'KudosWebhookError',
    meaning:
      '`tx.amount` is not a coin (or list of coins of one denom) with a positive whole number of the smallest unit (`path` names it)',
  },
  {
    code: 'invalid_tx_hash',
    status: 422,
    error: 'KudosWebhookError',
    meaning: '`tx.txHash` is not 64 hexadecimal characters',
  },
  {
    code: 'invalid_status',
    status: 422,
    error: 'KudosWebhookError',
    meaning: '`tx.status` is not pending, success, fail or timeout',
  },
  {
    code: 'unexpected_denom',
    status: 422,
    error: 'KudosWebhookError',
    meaning: '`tx.amount.denom` is not the `denom` option',
  },
  { code: 'too_deep', status: 422, error: 'KudosWebhookError', meaning: 'the body is nested too deeply' },
  {
    code: 'in_progress',
    status: 409,
    error: 'KudosWebhookError',
    meaning: 'an earlier delivery of this notification is still being processed; retry (Retry-After)',
  },
  {
    code: 'store_unavailable',
    status: 503,
    error: 'KudosWebhookError',
    meaning: 'the dedupe store failed; retry (Retry-After)',
  },
  {
    code: 'kept_unreadable',
    status: 500,
    error: 'KudosWebhookError',
    meaning:
      "told to `onError`: a kept record the store cannot read (edited by hand, another program's key) is skipped by `unprocessed()` and `redrive()` (the others are listed and redriven), and replaced as if absent by the next delivery of its payment (which is processed)",
  },
  {
    code: 'confirmation_unavailable',
    status: 503,
    error: 'KudosWebhookError',
    meaning: 'the confirmer (chain lookup) failed; retry (Retry-After)',
  },
  {
    code: 'handler_timeout',
    status: 503,
    error: 'KudosWebhookError',
    meaning:
      'the handler did not finish within `handlerTimeoutMs`; it goes on under its lease; retry (Retry-After)',
  },
  {
    code: 'handler_failed',
    status: 500,
    error: 'KudosWebhookError',
    meaning: 'the handler (or confirmer) threw; the key is released, so the redelivery is processed',
  },
] as const satisfies readonly KudosErrorCodeInfo[];

/** A code of {@link KUDOS_ERROR_CODES}. */
export type KudosErrorCode = (typeof KUDOS_ERROR_CODES)[number]['code'];
