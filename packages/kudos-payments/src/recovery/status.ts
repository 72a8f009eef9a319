import { KudosError } from 'kudos-core';

/**
 * What a receiver says of its health, for a `/healthz` route and an alert: what waits unprocessed and
 * since when, when a notification last arrived, and whether its store answers. Never a secret.
 */
export interface KudosReceiverStatus {
  /** Notifications kept and not processed yet (failed, timed out, cut off by a crash): what needs the operator now. */
  unprocessed: number;
  /** How long the oldest of them has waited, in milliseconds; null when none waits. */
  oldestUnprocessedMs: number | null;
  /**
   * With the payments API: payments that reached the shop and credit no order, not acknowledged yet
   * (to refund or look at). Counted apart: anyone can pay the shop's wallet, so they are not the
   * health verdict's. 0 for a receiver alone.
   */
  exceptions: number;
  /** How long ago the oldest of them was decided, in milliseconds; null when there is none. */
  oldestExceptionMs: number | null;
  /** When this process last received a notification that passed the secret check (epoch ms); null since it started. */
  lastNotificationAt: number | null;
  /** Whether the store answered the reading of what is kept. */
  storeOk: boolean;
  /** Why it did not (the error's code and message), null when it did. */
  storeError: string | null;
  /**
   * Whether the chain lookup works, as far as this process knows: false once a lookup answered as a
   * route that is gone (`endpoint_gone`: no chain's REST interface at that URL), until a notification
   * is confirmed again. Waiting does not mend it: set `restURL`.
   */
  lookupOk: boolean;
  /** Why it does not (the error's code and message, naming the URL), null when it does. */
  lookupError: string | null;
  /**
   * Transfers that `reconcileChain()` found on the chain and processed, since this process started,
   * that no notification had brought: a count that grows while notifications stop arriving.
   */
  recoveredFromChain: number;
  /** Whether the last `reconcileChain()` read its window whole (true until one has run). */
  chainScanOk: boolean;
  /** Why it did not (`incompleteReason`, or the error it rejected with), null when it did. */
  chainScanError: string | null;
  /**
   * Transfers the last `reconcileChain()` found and could not decide yet (the payer's lookup, the
   * confirmation or a store failed): none is dropped, each is read again by the next run, and while
   * any waits the run is incomplete (`chainScanOk` false, `undecided:` its reason). 0 when none waits.
   */
  chainUndecided: number;
}

/** What the receiver knows of its reads of the chain, for `status()`. */
export interface ChainStatus {
  /** Why the chain lookup fails, null when it works. */
  lookupError: string | null;
  recoveredFromChain: number;
  chainScanOk: boolean;
  chainScanError: string | null;
  chainUndecided: number;
}

/** Why a store did not answer, as a status says it: the error's code and message. */
export function storeErrorOf(error: unknown): string {
  const code = error instanceof KudosError ? `${error.code}: ` : '';
  return `${code}${error instanceof Error ? error.message : 'failed'}`;
}

/** The payments' exceptions as a status reads them: their figures, or why their store did not answer. */
export type ExceptionFigures = { count: number; oldestAt: number | null } | { storeError: string };

/** The status of what `list()` answers (each with the time it started to wait), read at `now`. */
export async function readStatus(
  list: () => Promise<ReadonlyArray<{ since: number }>>,
  lastNotificationAt: number | null,
  now: number,
  chain: ChainStatus,
): Promise<KudosReceiverStatus> {
  const { lookupError, ...scans } = chain;
  const lookup = { lookupOk: lookupError === null, lookupError, ...scans };
  try {
    const waiting = await list();
    const oldest = waiting.reduce((min, w) => Math.min(min, w.since), Number.POSITIVE_INFINITY);
    return {
      unprocessed: waiting.length,
      oldestUnprocessedMs: waiting.length === 0 ? null : Math.max(0, now - oldest),
      exceptions: 0,
      oldestExceptionMs: null,
      lastNotificationAt,
      storeOk: true,
      storeError: null,
      ...lookup,
    };
  } catch (error) {
    // A health answer never throws: a store that does not answer is what it reports.
    return {
      unprocessed: 0,
      oldestUnprocessedMs: null,
      exceptions: 0,
      oldestExceptionMs: null,
      lastNotificationAt,
      storeOk: false,
      storeError: storeErrorOf(error),
      ...lookup,
    };
  }
}

/**
 * A receiver's status with the payments' exceptions beside it (how many wait, and when the oldest was
 * decided, read at `now`): their figures apart from what waits unprocessed; a store that did not
 * answer for either makes the whole answer a failed one.
 */
export function withExceptions(
  status: KudosReceiverStatus,
  exceptions: ExceptionFigures,
  now: number,
): KudosReceiverStatus {
  if ('storeError' in exceptions) {
    return {
      ...status,
      unprocessed: 0,
      oldestUnprocessedMs: null,
      storeOk: false,
      storeError: exceptions.storeError,
    };
  }
  if (!status.storeOk) return status;
  return {
    ...status,
    exceptions: exceptions.count,
    oldestExceptionMs: exceptions.oldestAt === null ? null : Math.max(0, now - exceptions.oldestAt),
  };
}
