import { randomBytes } from 'node:crypto';
import { KudosError, storeUnavailable } from 'kudos-core';
import {
  DedupeStoreFullError,
  type KudosClaimContext,
  type KudosClaimResult,
  type KudosDedupeStore,
  type KudosKeptNotification,
} from './dedupe.js';
import { isRefusal, KudosNotificationError, type KudosRefusal, keptUnreadable } from './errors.js';

/** Timing of {@link processOnce}. */
interface ProcessOnceOptions {
  /** Processing lease of a claim, renewed while the work runs. */
  leaseMs: number;
  /** How long a processed key is remembered. */
  dedupeTtlMs: number;
  /** Longest wait for the work before answering `handler_timeout`; the work goes on, under its lease. */
  handlerTimeoutMs: number;
  /** Told of problems that come after the answer was decided (a late failure, a failed `complete`). */
  report: (error: KudosRefusal) => void;
  /** Whether the notification was verified before its claim (its secret checked, or fetched from the service). */
  trusted: boolean;
  /**
   * Read once the work succeeded: whether the key is trusted now (e.g. confirmed on the chain). Given,
   * a notification neither trusted before its claim nor after its work releases its key instead of
   * closing it; absent (nothing can verify it), it closes it as trusted work would.
   */
  trustedAfter?: () => boolean;
  /**
   * Read once the work succeeded: how long the done key is remembered, when not `dedupeTtlMs` (a
   * notification that proved to pay nothing need not hold a key for days).
   */
  doneTtlMs?: () => number;
  /**
   * What the store keeps until the work succeeds (`attempts` and `lastError` are filled in here), so
   * that `unprocessed()` lists it and `redrive()` runs it again. A trusted notification is kept with
   * its claim, before the work runs, so a crash in the middle loses nothing; an untrusted one only
   * once the work calls `verified()` (confirmed on the chain), so that forged bodies never fill the
   * store. Undefined, or a store without `keep()`: nothing is kept.
   */
  keep?: Omit<KudosKeptNotification, 'attempts' | 'lastError'>;
}

/** Longest `lastError` kept. */
const MAX_ERROR_TEXT = 500;

/** What is kept of an error: its code (when it has one) and message, never its stack. */
function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof KudosNotificationError ? `${error.code}: ` : '';
  return `${code}${message}`.slice(0, MAX_ERROR_TEXT);
}

/** What the work tells {@link processOnce} while it runs. */
interface WorkProgress {
  /** The notification is verified now (confirmed on the chain): keep it from here on, if not yet. */
  verified(): Promise<void>;
}

/** What became of one delivery. */
export type ProcessOutcome = 'processed' | 'duplicate';

/** Calls a store method inside an async function, so a synchronous throw becomes a rejection too. */
async function call<T>(method: () => Promise<T>): Promise<T> {
  return method();
}

function readClaim(result: unknown): KudosClaimResult {
  if (result === 'claimed' || result === 'done' || result === 'processing') return result;
  throw storeUnavailable(
    'dedupe store answered claim() with something other than claimed, processing or done',
    undefined,
  );
}

/** Renews the lease every third of its length until stopped (the answer stops it). */
export function keepLease(
  store: KudosDedupeStore,
  key: string,
  leaseMs: number,
  claim: KudosClaimContext,
  report: (error: KudosRefusal) => void,
) {
  const extend = store.extend?.bind(store);
  if (!extend) return () => undefined;
  const timer = setInterval(
    () => {
      extend(key, leaseMs, claim).catch((cause: unknown) =>
        report(storeUnavailable('could not renew the processing lease', cause)),
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
 *   resolves `processed` (a notification neither trusted nor verified by then releases it instead:
 *   it may not close a key); failure releases the key (the next redelivery processes it) and
 *   rejects with the work's error;
 * - work slower than `handlerTimeoutMs` rejects with `handler_timeout` (503, retryable) while it goes on
 *   under its lease, no longer renewed: a late success still marks the key done, a late failure
 *   releases it, and once the lease runs out a redelivery may run the work again (so work that
 *   never settles cannot hold the key forever). Only work slower than `handlerTimeoutMs + leaseMs` can
 *   ever run twice at once.
 *
 * Store failures reject with `store_unavailable` (503). No rejection escapes.
 */
export async function processOnce(
  store: KudosDedupeStore,
  key: string,
  options: ProcessOnceOptions,
  work: (progress: WorkProgress) => Promise<void>,
): Promise<ProcessOutcome> {
  // The token is chosen before the claim is sent: a claim whose answer never comes (a store that
  // timed out while it still ran the command) is released with it as soon as the store gets to it.
  const holder: KudosClaimContext = {
    token: randomBytes(16).toString('base64url'),
    trusted: options.trusted,
  };
  const keeper = new Keeper(store, options);
  const claimed = await claimKey(store, key, options, holder, keeper);
  if (claimed === 'done') return 'duplicate';
  if (claimed === 'processing') {
    // The holder may be alive (a delivery still running) or gone (its process killed): either way
    // its lease, renewed while it runs, ends within leaseMs once it stops.
    throw new KudosNotificationError('in_progress', {
      message: `another run holds this notification (a delivery, a redrive, or one whose process stopped): its lease ends within ${Math.ceil(options.leaseMs / 1000)} s of that run's last renewal; retry then (redrive() does)`,
    });
  }
  await keeper.keepAtClaim();
  return answerInTime(options, runClaimed(store, key, options, holder, keeper, work), keeper);
}

/** Releases a claim, and again for a while if the store does not answer (a failover). */
function releaseHolder(store: KudosDedupeStore, key: string, holder: KudosClaimContext): Promise<void> {
  const release = () => store.release(key, holder);
  return release().catch(() => retryLater(release, () => undefined));
}

/**
 * Step 1: claims the key, keeping the notification in the same step when the store can. A claim
 * that failed may have been made all the same (its answer lost, or Redis slow): it is released with
 * its token, so that the key is not held for the whole lease and the redelivery can claim it.
 */
async function claimKey(
  store: KudosDedupeStore,
  key: string,
  options: ProcessOnceOptions,
  holder: KudosClaimContext,
  keeper: Keeper,
): Promise<KudosClaimResult> {
  const claim = keeper.claimContext(holder);
  try {
    return readClaim(await store.claim(key, options.leaseMs, claim));
  } catch (cause) {
    void releaseHolder(store, key, holder);
    if (cause instanceof DedupeStoreFullError) throw storeUnavailable(cause.message, cause);
    throw isRefusal(cause)
      ? cause
      : storeUnavailable(
          // A store that cannot be used at all says why (its file, its server's policy): the operator reads it in onError.
          cause instanceof KudosError && cause.code === 'store_unusable'
            ? `dedupe store is unusable: ${cause.message}`
            : 'dedupe store is unavailable; retry later',
          cause,
        );
  }
}

/**
 * What is kept of the notification until its work succeeds, and when: a trusted one with its claim
 * (in the claim's own step when the store keeps on claim), an untrusted one once the work calls
 * `verified()`, a failed attempt only when trusted or verified (forged bodies are never kept).
 */
class Keeper {
  /** What a claim keeps: a trusted notification, when the store keeps at all. */
  private readonly atClaim: KudosKeptNotification | undefined;
  private keptYet: boolean;
  /** A kept record the store could not read is replaced, and told once: the payment goes on. */
  private readonly unreadable = (where: string, reason: string) =>
    this.options.report(keptUnreadable(where, reason, 'replaced'));

  constructor(
    private readonly store: KudosDedupeStore,
    private readonly options: ProcessOnceOptions,
  ) {
    this.atClaim =
      options.keep && store.keep && options.trusted
        ? { ...options.keep, attempts: 1, lastError: null }
        : undefined;
    this.keptYet = this.atClaim !== undefined && store.keepsOnClaim === true;
  }

  /** The claim's context: with the record to keep, when the store keeps on claim. */
  claimContext(holder: KudosClaimContext): KudosClaimContext {
    return this.atClaim && this.store.keepsOnClaim
      ? {
          ...holder,
          keep: { record: this.atClaim, ttlMs: this.options.dedupeTtlMs },
          unreadable: this.unreadable,
        }
      : holder;
  }

  /** Whether the notification is trusted now: verified before its claim, or confirmed since. */
  trustedNow(): boolean {
    return this.options.trusted || this.options.trustedAfter?.() === true;
  }

  /** After the claim: keeps a trusted notification when the claim itself could not. */
  async keepAtClaim(): Promise<void> {
    if (this.atClaim && !this.store.keepsOnClaim) await this.keep(1, undefined);
  }

  /** The work says the notification is verified now: keep it from here on, if not yet. */
  async verified(): Promise<void> {
    if (!this.keptYet) await this.keep(1, undefined);
  }

  /** Keeps a failed attempt: a trusted or verified notification only (forged bodies are not kept). */
  async failure(error: unknown): Promise<void> {
    if (this.keptYet) return this.keep(0, error);
    if (this.trustedNow()) return this.keep(1, error);
  }

  private async keep(attempts: number, error: unknown): Promise<void> {
    const { keep: base } = this.options;
    const method = this.store.keep?.bind(this.store);
    if (!base || !method) return;
    const lastError = error === undefined ? null : describeError(error);
    const trusted = this.trustedNow();
    this.keptYet = true;
    await method({ ...base, trusted, attempts, lastError }, this.options.dedupeTtlMs, this.unreadable).catch(
      (cause: unknown) =>
        this.options.report(storeUnavailable('could not keep the notification for redrive', cause)),
    );
  }
}

/**
 * Step 2: runs the work under a renewed lease; then marks the key done (step 3) or releases it and
 * keeps the failure (step 4). The promise settles as the work did, whenever that is.
 */
function runClaimed(
  store: KudosDedupeStore,
  key: string,
  options: ProcessOnceOptions,
  holder: KudosClaimContext,
  keeper: Keeper,
  work: (progress: WorkProgress) => Promise<void>,
): { finished: Promise<void>; stopLease: () => void; answered: { value: boolean } } {
  const stopLease = keepLease(store, key, options.leaseMs, holder, options.report);
  const answered = { value: false };
  const finished = call(() => work({ verified: () => keeper.verified() })).then(
    () => {
      stopLease();
      // Neither authenticated nor confirmed (a body anyone could post): it closes nothing. Marking
      // its key done would bury the real notification of the same hash (answered duplicate), and
      // complete() would forget what was kept of it; the key is released instead.
      if (options.trustedAfter && !keeper.trustedNow()) return releaseHolder(store, key, holder);
      const dedupeTtlMs = options.doneTtlMs?.() ?? options.dedupeTtlMs;
      return markDone(store, key, { ...options, dedupeTtlMs }, { ...holder, trusted: keeper.trustedNow() });
    },
    async (error: unknown) => {
      stopLease();
      await releaseHolder(store, key, holder); // else the lease expires
      await keeper.failure(error);
      if (answered.value) options.report(asHandlerError(error));
      throw error;
    },
  );
  return { finished, stopLease, answered };
}

/**
 * Step 3: marks the key done. Processed already: the answer does not wait for a store that fails now
 * (a Redis failing over), but the key must still be marked done, or redrive() would run the work
 * again. While the mark is retried the lease is held (renewed), so a redelivery or a redrive()
 * meanwhile is answered in_progress instead of running the work a second time.
 */
async function markDone(
  store: KudosDedupeStore,
  key: string,
  options: ProcessOnceOptions,
  holder: KudosClaimContext,
): Promise<void> {
  const complete = () => store.complete(key, options.dedupeTtlMs, holder);
  await complete().catch((cause: unknown) => {
    const stopHolding = keepLease(store, key, options.leaseMs, holder, () => undefined);
    retryLater(
      complete,
      () => {
        stopHolding();
        options.report(storeUnavailable('could not mark the notification processed', cause));
      },
      0,
      stopHolding,
    );
  });
}

/**
 * Step 5: the answer, within `handlerTimeoutMs`: the work's outcome, or `handler_timeout`. Renewal ends at
 * the timeout: the lease stays until it runs out, so a late success still counts and a redelivery
 * within it gets 409, but a handler that never settles cannot hold the key forever.
 */
function answerInTime(
  options: ProcessOnceOptions,
  run: ReturnType<typeof runClaimed>,
  keeper: Keeper,
): Promise<ProcessOutcome> {
  const { finished, stopLease, answered } = run;
  return new Promise<ProcessOutcome>((resolve, reject) => {
    const timer = setTimeout(() => {
      answered.value = true;
      stopLease();
      const timeout = new KudosNotificationError('handler_timeout', {
        message: `the notification handler did not finish within ${options.handlerTimeoutMs} ms; it goes on, and a redelivery will be answered by its outcome`,
      });
      keeper.failure(timeout).finally(() => reject(timeout));
    }, options.handlerTimeoutMs);
    finished.then(
      () => {
        clearTimeout(timer);
        if (answered.value) return;
        answered.value = true;
        resolve('processed');
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (answered.value) return;
        answered.value = true;
        reject(error);
      },
    );
  });
}

/** Pauses before each retry of a failed store write: about 30 s in all, longer than a failover takes and shorter than the lease (60 s by default). */
const RETRY_MS = [250, 500, 1000, 2000, 4000, 8000, 16000];

/**
 * Tries `write` again in the background after it failed once (a Redis failing over answers nothing
 * for a few seconds); calls `giveUp` only when every retry failed too.
 */
function retryLater(
  write: () => Promise<void>,
  giveUp: () => void,
  attempt = 0,
  succeeded: () => void = () => undefined,
): void {
  const pause = RETRY_MS[attempt];
  if (pause === undefined) {
    giveUp();
    return;
  }
  setTimeout(() => {
    write().then(succeeded, () => retryLater(write, giveUp, attempt + 1, succeeded));
  }, pause).unref();
}

/** A failure of the app's handler (or confirmer) as the receiver reports it. */
export function asHandlerError(error: unknown): KudosRefusal {
  return isRefusal(error)
    ? error
    : new KudosNotificationError('handler_failed', {
        message: 'the notification could not be processed; it will be accepted on redelivery',
        cause: error,
      });
}
