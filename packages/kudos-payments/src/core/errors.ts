import {
  KUDOS_ERROR_CODES,
  KudosError,
  type KudosErrorOptions,
  type KudosStoreUnavailable,
} from 'kudos-core';

type WebhookRow = Extract<(typeof KUDOS_ERROR_CODES)[number], { error: 'KudosNotificationError' }>;

/**
 * Codes of {@link KudosNotificationError} and the HTTP status each is answered with, taken from the one
 * table of every code, `KUDOS_ERROR_CODES`. This is the one place where the receiver maps problems
 * to statuses.
 */
export const NOTIFICATION_ERROR_STATUS = Object.fromEntries(
  KUDOS_ERROR_CODES.filter((row): row is WebhookRow => row.error === 'KudosNotificationError').map((row) => [
    row.code,
    row.status,
  ]),
) as { readonly [Code in WebhookRow['code']]: Extract<WebhookRow, { code: Code }>['status'] };

/** A stable code of {@link KudosNotificationError}. */
export type KudosNotificationErrorCode = keyof typeof NOTIFICATION_ERROR_STATUS;

/** Options of {@link KudosNotificationError}. */
export interface KudosNotificationErrorOptions extends KudosErrorOptions {
  /** Dotted path of the offending field (`tx.amount.amount`), for schema violations. */
  path?: string | undefined;
}

/**
 * Why a notification was refused. `path` names the offending field (`tx.amount.amount`) for
 * schema violations; `status` is what the receiver answers, from the error table.
 */
export class KudosNotificationError extends KudosError {
  declare readonly code: KudosNotificationErrorCode;
  /** Dotted path of the offending field, for schema violations. */
  readonly path: string | undefined;

  constructor(code: KudosNotificationErrorCode, options: KudosNotificationErrorOptions = {}) {
    super({ kind: 'KudosNotificationError', code, message: options.message, cause: options.cause });
    this.path = options.path;
  }
}

export type { KudosStoreUnavailable } from 'kudos-core';

/**
 * What the receiver refuses a notification with, and tells `onError`: its own errors, and a store's
 * failure (`store_unavailable`: kudos-core's `KudosError`, the one code of a store that failed,
 * whoever met it: a notification, `createOrder()`, a token store).
 */
export type KudosRefusal = KudosNotificationError | KudosStoreUnavailable;

/** Whether `value` is a refusal the receiver answers as it is (see {@link KudosRefusal}). */
export function isRefusal(value: unknown): value is KudosRefusal {
  return (
    value instanceof KudosNotificationError ||
    (value instanceof KudosError && value.code === 'store_unavailable')
  );
}

/**
 * What `onError` is told of a kept record a store could not read: `skipped` by `unprocessed()` and
 * `redrive()` (the others are listed), or `replaced` by a delivery of its payment (which goes on).
 */
export function keptUnreadable(
  key: string,
  reason: string,
  fate: 'skipped' | 'replaced',
): KudosNotificationError {
  return new KudosNotificationError('kept_unreadable', {
    message: `kept record ${key} could not be read (${reason}); it is ${fate}`,
  });
}
