import { KudosError } from '../errors.js';

/**
 * Codes of {@link KudosWebhookError} and the HTTP status each is answered with.
 * This table is the one place where the receiver maps problems to statuses.
 */
export const WEBHOOK_ERROR_STATUS = {
  method_not_allowed: 405,
  invalid_secret: 401,
  unsupported_media_type: 415,
  payload_too_large: 413,
  invalid_json: 400,
  not_an_object: 400,
  body_already_consumed: 500,
  missing_field: 422,
  invalid_field: 422,
  invalid_amount: 422,
  invalid_tx_hash: 422,
  invalid_status: 422,
  invalid_timestamp: 422,
  unexpected_denom: 422,
  too_deep: 422,
  in_progress: 409,
  store_unavailable: 503,
  confirmation_unavailable: 503,
  handler_timeout: 503,
  handler_failed: 500,
} as const;

/** A stable code of {@link KudosWebhookError}. */
export type KudosWebhookErrorCode = keyof typeof WEBHOOK_ERROR_STATUS;

/**
 * Why a notification was refused. `path` names the offending field (`tx.amount.amount`) for
 * schema violations; `status` is what the receiver answers.
 */
export class KudosWebhookError extends KudosError {
  declare readonly code: KudosWebhookErrorCode;
  /** Dotted path of the offending field, for schema violations. */
  readonly path: string | undefined;

  constructor(code: KudosWebhookErrorCode, message: string, path?: string, cause?: unknown) {
    super(message, { code, status: WEBHOOK_ERROR_STATUS[code], cause });
    this.name = 'KudosWebhookError';
    this.path = path;
  }
}
