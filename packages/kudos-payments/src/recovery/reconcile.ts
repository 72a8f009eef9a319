// What a chain reconcile did, and how it feeds each transfer it read through the one pipeline; and
// the service's record of one transaction, which an unauthenticated notification is checked against.
import {
  answerError,
  apiPath,
  endpointGone,
  type HttpCall,
  isDocumentedNotFound,
  isOk,
  isRecord,
  jsonOf,
  KUDOS_API,
  request,
} from 'kudos-core';
import { KudosNotificationError } from '../core/errors.js';
import { observeNotification } from '../core/observe.js';
import { type PipelineSettings, runNotification } from '../core/pipeline.js';
import { asHandlerError } from '../core/process-once.js';

/** What `reconcileChain()` did. */
export interface KudosReconcileResult {
  /** Transfers read from the chain. */
  seen: number;
  /** Processed now: no delivery had brought them. */
  processed: number;
  /** Already processed (a delivery came first, or an earlier reconcile). */
  duplicates: number;
  /**
   * Could not be processed now (the handler or the confirmation failed, or a delivery holds the key);
   * kept for `redrive()` once confirmed.
   */
  failed: number;
  /**
   * Not processed: older than the dedupe TTL (or with no `ts`), so its key may be forgotten and a
   * payment handled long ago would run again.
   */
  stale: number;
  /** True when the window could not be read whole, or what was read could not all be decided yet. */
  incomplete: boolean;
  /**
   * With `incomplete`: why, for a log: a stable word, a colon, and what the node answered, naming its
   * URL: `repeated_page`, `total_contradicted`, `page_limit`, `no_block_time`, `undecided`
   * (transfers that could not be decided yet: the next run reads each again).
   */
  incompleteReason?: string;
  /**
   * Requests made to the chain's search (and lookups by hash of what an earlier run could not
   * decide). The confirmation of what it found needs none: it reads what the search answered.
   */
  requests?: number;
  /** This call joined a run of the same reconcile already under way in this process, and answers its result. */
  joined?: true;
  /**
   * Another instance sharing the store is running the same reconcile right now: this call read
   * nothing and returned at once (that run reads the window).
   */
  busy?: true;
}

/** Largest answer read from a lookup (a page of 10 records is a few kB). */
const MAX_LOOKUP_BYTES = 1024 * 1024;

/** What to tell the app when the service's record lookup is gone. */
const GONE_HINT =
  'Authenticate notifications with a "secret" (the service removed /tx/** on 2026-08-21), and recover with reconcileChain().';

/**
 * The service's own record of one transaction (`GET {baseURL}/tx/id/{HASH}`, no token: what an
 * unauthenticated notification is checked against), or undefined when it does not know the hash;
 * `endpoint_gone` for another 404 (a removed route's HTML page), `KudosApiError` for anything else.
 */
export async function fetchTransactionRecord(
  base: string,
  txHash: string,
  timeoutMs: number,
): Promise<unknown> {
  const what = `GET ${KUDOS_API.transaction}`;
  const url = base + apiPath(KUDOS_API.transaction, { hash: txHash.toUpperCase() });
  const call: HttpCall = {
    service: 'api',
    what,
    url,
    headers: { accept: 'application/json' },
    timeoutMs,
    maxBytes: MAX_LOOKUP_BYTES,
  };
  const answer = await request(call);
  if (answer.status === 404) {
    if (isDocumentedNotFound(answer, 'service')) return undefined;
    throw endpointGone(url, answer, `the service's ${what}`, GONE_HINT);
  }
  if (!isOk(answer.status)) throw answerError(answer, call);
  return jsonOf(answer, call);
}

/** A result with nothing counted yet. */
export function emptyResult(): KudosReconcileResult {
  return { seen: 0, processed: 0, duplicates: 0, failed: 0, stale: 0, incomplete: false };
}

/** What became of one record fed: processed, already processed, held by a delivery, failed, or too old. */
export type FeedOutcome = 'processed' | 'duplicate' | 'held' | 'failed' | 'stale';

/** What the chain reconcile adds to a record it feeds (see `PipelineInput`). */
export interface FeedExtras {
  namePayer?: () => Promise<string | null>;
  chainAnswer?: { lcd: string; body: unknown };
}

/** Runs one record found on the chain through the pipeline, counting what became of it. */
export async function feed(
  settings: PipelineSettings,
  record: unknown,
  result: KudosReconcileResult,
  extras: FeedExtras = {},
): Promise<FeedOutcome> {
  result.seen++;
  // Older than the TTL: its key may be forgotten, so a payment handled then would run again.
  const ts = isRecord(record) && typeof record.ts === 'number' ? record.ts : undefined;
  if (ts === undefined || ts < settings.now() - settings.dedupeTtlMs) {
    result.stale++;
    return 'stale';
  }
  try {
    // A record is a notification's `tx`; the service sends no metadata with it. Untrusted until
    // confirmed: whoever picked the hash (a return page's `tx_hash`) must not make it evict, or
    // be kept beside, what the service really delivered.
    const { outcome } = await observeNotification('reconcile', (message) =>
      runNotification(settings, {
        body: { tx: record },
        source: 'reconcile',
        trusted: false,
        req: undefined,
        message,
        ...extras,
      }),
    );
    if (outcome === 'duplicate') result.duplicates++;
    else result.processed++;
    return outcome;
  } catch (error) {
    result.failed++;
    // A delivery holds the same transaction right now (the return page and the notification came
    // together): it decides it; not a failure to tell.
    if (error instanceof KudosNotificationError && error.code === 'in_progress') return 'held';
    settings.report(asHandlerError(error), undefined);
    return 'failed';
  }
}
