import {
  type KudosNotificationMessage,
  type KudosNotificationPath,
  type KudosStoreMethod,
  traced,
} from '../base/trace.js';
import type { KudosDedupeStore } from './dedupe.js';
import type { KudosWebhookError } from './errors.js';

// The receiver's side of the tracing channels (base/trace.ts): one `passport-kudos:notification`
// operation per notification, whichever path brought it, and one `passport-kudos:store` operation
// per call to the dedupe store.

/** Runs one notification (a delivery, or one of `redrive()` and `reconcile()`) as a traced operation. */
export function observeNotification<T>(
  source: KudosNotificationPath,
  run: (message: KudosNotificationMessage | undefined) => Promise<T>,
): Promise<T> {
  return traced('notification', () => ({ operation: 'notification', source }), run);
}

/** Codes of a failure after which the notification stays kept, when it was trusted or confirmed. */
const KEPT_AFTER = new Set(['handler_failed', 'handler_timeout', 'confirmation_unavailable']);

/**
 * Records how a notification failed, unless already recorded: `in_progress` (another delivery holds
 * it), `refused` (a 4xx answer: its secret, its shape), `kept` (it failed and waits for `redrive()`),
 * or `failed` (nothing kept: a store down, or a forged body that never got confirmed).
 */
export function recordFailure(
  message: KudosNotificationMessage | undefined,
  error: KudosWebhookError,
  keptIfHandlerFailed: boolean,
): void {
  if (!message || message.outcome !== undefined) return;
  message.code = error.code;
  if (error.code === 'in_progress') message.outcome = 'in_progress';
  else if (error.status < 500) message.outcome = 'refused';
  else if (keptIfHandlerFailed && KEPT_AFTER.has(error.code)) {
    message.outcome = 'kept';
    message.kept = true;
  } else message.outcome = 'failed';
}

/** The name a store's calls are traced under: its class. */
function storeName(store: KudosDedupeStore): string {
  const name = (store as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'KudosDedupeStore';
}

/**
 * Calls one store method as a traced operation. Called inside an async function, so a store that
 * throws synchronously rejects too.
 */
export function storeCall<T>(
  store: KudosDedupeStore,
  method: KudosStoreMethod,
  key: string | undefined,
  call: () => Promise<T>,
): Promise<T> {
  return traced(
    'store',
    () => ({ operation: 'store', store: storeName(store), method, ...(key === undefined ? {} : { key }) }),
    async (message) => {
      const value = await call();
      if (message) {
        message.outcome = 'success';
        if (method === 'claim' && typeof value === 'string') message.answer = value;
      }
      return value;
    },
  );
}
