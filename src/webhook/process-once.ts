import type { KudosClaimResult, KudosDedupeStore } from './dedupe.js';
import { KudosWebhookError } from './errors.js';

/** Timing of {@link processOnce}. */
export interface ProcessOnceOptions {
  /** Processing lease of a claim, renewed while the work runs. */
  leaseMs: number;
  /** How long a processed key is remembered. */
  ttlMs: number;
  /** Longest wait for the work before answering `handler_timeout`; the work goes on, under its lease. */
  timeoutMs: number;
  /** Told of problems that come after the answer was decided (a late failure, a failed `complete`). */
  report: (error: KudosWebhookError) => void;
}

/** What became of one delivery. */
export type ProcessOutcome = 'processed' | 'duplicate';

function storeError(message: string, cause: unknown): KudosWebhookError {
  return new KudosWebhookError('store_unavailable', message, undefined, cause);
}

/** Calls a store method inside an async function, so a synchronous throw becomes a rejection too. */
async function call<T>(method: () => Promise<T>): Promise<T> {
  return method();
}

function readClaim(result: unknown): KudosClaimResult {
  if (result === 'claimed' || result === 'done' || result === 'processing') return result;
  throw storeError(
    'dedupe store answered claim() with something other than claimed, processing or done',
    undefined,
  );
}

/** Renews the lease every third of its length until stopped. */
function keepLease(
  store: KudosDedupeStore,
  key: string,
  leaseMs: number,
  report: ProcessOnceOptions['report'],
) {
  const extend = store.extend?.bind(store);
  if (!extend) return () => undefined;
  const timer = setInterval(
    () => {
      call(() => extend(key, leaseMs)).catch((cause: unknown) =>
        report(storeError('could not renew the processing lease', cause)),
      );
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Runs `work` for `key` at most once at a time and, once it succeeded, never again within the TTL:
 *
 * - `done` keys resolve `duplicate` at once;
 * - a key another delivery is processing rejects with `in_progress` (409, retryable), never 200,
 *   so a redelivery is not lost if that first attempt then fails;
 * - a claimed key runs `work` under a lease renewed while it runs. Success marks the key done and
 *   resolves `processed`; failure releases the key (the next redelivery processes it) and rejects
 *   with the work's error;
 * - work slower than `timeoutMs` rejects with `handler_timeout` (503, retryable) while it goes on
 *   under its lease, no longer renewed: a late success still marks the key done, a late failure
 *   releases it, and once the lease runs out a redelivery may run the work again (so work that
 *   never settles cannot hold the key forever). Only work slower than `timeoutMs + leaseMs` can
 *   ever run twice at once.
 *
 * Store failures reject with `store_unavailable` (503). No rejection escapes.
 */
export async function processOnce(
  store: KudosDedupeStore,
  key: string,
  options: ProcessOnceOptions,
  work: () => Promise<void>,
): Promise<ProcessOutcome> {
  const claimed = readClaim(
    await call(() => store.claim(key, options.leaseMs)).catch((cause: unknown) => {
      throw storeError('dedupe store is unavailable; retry later', cause);
    }),
  );
  if (claimed === 'done') return 'duplicate';
  if (claimed === 'processing') {
    throw new KudosWebhookError(
      'in_progress',
      'this notification is being processed by an earlier delivery; retry later',
    );
  }
  const stopLease = keepLease(store, key, options.leaseMs, options.report);
  let answered = false;
  const finished = call(work).then(
    async () => {
      stopLease();
      await call(() => store.complete(key, options.ttlMs)).catch((cause: unknown) =>
        // Processed already: the lease still guards against a quick redelivery.
        options.report(storeError('could not mark the notification processed', cause)),
      );
    },
    async (error: unknown) => {
      stopLease();
      await call(() => store.release(key)).catch(() => undefined); // else the lease expires
      if (answered) options.report(asHandlerError(error));
      throw error;
    },
  );
  return new Promise<ProcessOutcome>((resolve, reject) => {
    const timer = setTimeout(() => {
      answered = true;
      // Renewal ends here: the lease stays until it runs out, so a late success still counts and a
      // redelivery within it gets 409, but a handler that never settles cannot hold the key forever.
      stopLease();
      reject(
        new KudosWebhookError(
          'handler_timeout',
          `the notification handler did not finish within ${options.timeoutMs} ms; it goes on, and a redelivery will be answered by its outcome`,
        ),
      );
    }, options.timeoutMs);
    finished.then(
      () => {
        clearTimeout(timer);
        answered = true;
        resolve('processed');
      },
      (error: unknown) => {
        clearTimeout(timer);
        answered = true;
        reject(error);
      },
    );
  });
}

/** A failure of the app's handler (or confirmer) as the receiver reports it. */
export function asHandlerError(error: unknown): KudosWebhookError {
  return error instanceof KudosWebhookError
    ? error
    : new KudosWebhookError(
        'handler_failed',
        'the notification could not be processed; it will be accepted on redelivery',
        undefined,
        error,
      );
}
