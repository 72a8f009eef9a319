import {
  type KudosNotificationMessage,
  type KudosNotificationPath,
  type KudosStoreMethod,
  traced,
} from 'kudos-core';
import type {
  KudosClaimContext,
  KudosDedupeStore,
  KudosKeptNotification,
  KudosUnreadableKept,
} from './dedupe.js';
import type { KudosRefusal } from './errors.js';

// The receiver's side of the tracing channels (base/trace.ts): one `passport-kudos:notification`
// operation per notification, whichever path brought it, and one `passport-kudos:store` operation
// per call to the dedupe store.

/** Runs one notification (a delivery, or one of `redrive()` and `reconcileChain()`) as a traced operation. */
export function observeNotification<T>(
  source: KudosNotificationPath,
  run: (message: KudosNotificationMessage | undefined) => Promise<T>,
): Promise<T> {
  return traced('notification', () => ({ operation: 'notification', source }), run);
}

/** Codes of a failure after which the notification stays kept, when it was trusted or confirmed. */
const KEPT_AFTER = new Set([
  'handler_failed',
  'handler_timeout',
  'confirmation_unavailable',
  'endpoint_gone',
]);

/**
 * Records how a notification failed, unless already recorded: `in_progress` (another delivery holds
 * it), `refused` (a 4xx answer: its secret, its shape), `kept` (it failed and waits for `redrive()`),
 * or `failed` (nothing kept: a store down, or a forged body that never got confirmed).
 */
export function recordFailure(
  message: KudosNotificationMessage | undefined,
  error: KudosRefusal,
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
 * The store with each of its calls traced (`passport-kudos:store`, under the store's class name): the
 * receiver wraps its store once, so that its flow calls the store and reads straight through. A call
 * runs inside an async function, so a store that throws synchronously rejects too. The optional
 * methods are there when the store has them.
 */
export function tracedStore(store: KudosDedupeStore): KudosDedupeStore {
  const name = storeName(store);
  const call = <T>(method: KudosStoreMethod, key: string | undefined, run: () => Promise<T>): Promise<T> =>
    traced(
      'store',
      () => ({ operation: 'store', store: name, method, ...(key === undefined ? {} : { key }) }),
      async (message) => {
        const value = await run();
        if (message) {
          message.outcome = 'success';
          if (method === 'claim' && typeof value === 'string') message.answer = value;
        }
        return value;
      },
    );
  const { extend, keep, kept, health, checkpoint, saveCheckpoint } = store;
  return {
    keepsOnClaim: store.keepsOnClaim === true,
    claim: (key, leaseMs, claim) => call('claim', key, () => store.claim(key, leaseMs, claim)),
    complete: (key, ttlMs, claim) => call('complete', key, () => store.complete(key, ttlMs, claim)),
    release: (key, claim) => call('release', key, () => store.release(key, claim)),
    ...(extend && {
      extend: (key: string, leaseMs: number, claim: KudosClaimContext) =>
        call('extend', key, () => extend.call(store, key, leaseMs, claim)),
    }),
    ...(keep && {
      keep: (record: KudosKeptNotification, ttlMs: number, unreadable?: KudosUnreadableKept) =>
        call('keep', record.key, () => keep.call(store, record, ttlMs, unreadable)),
    }),
    ...(kept && {
      kept: (limit: number, unreadable?: KudosUnreadableKept) =>
        call('kept', undefined, () => kept.call(store, limit, unreadable)),
    }),
    ...(health && { health: () => health.call(store) }),
    ...(checkpoint &&
      saveCheckpoint && {
        checkpoint: (name: string) => call('checkpoint', name, () => checkpoint.call(store, name)),
        saveCheckpoint: (name: string, value: string, ttlMs: number) =>
          call('saveCheckpoint', name, () => saveCheckpoint.call(store, name, value, ttlMs)),
      }),
  };
}
