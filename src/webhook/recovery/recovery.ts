import type {
  KudosDedupeStore,
  KudosKeptNotification,
  KudosUnprocessedNotification,
} from '../core/dedupe.js';
import { keptUnreadable } from '../core/errors.js';
import { observeNotification } from '../core/observe.js';
import { type PipelineSettings, runNotification } from '../core/pipeline.js';
import { asHandlerError } from '../core/process-once.js';

/** Most kept notifications one `unprocessed()` or `redrive()` reads. */
const MAX_KEPT_READ = 1_000_000;

/** What `redrive()` did. */
export interface KudosRedriveResult {
  /** Run and succeeded now (or found done already: processed meanwhile). */
  processed: number;
  /** Run and failed again; they stay kept, with their new `lastError`. */
  failed: number;
  /** Kept and not processed after the run (the failed ones, and those another delivery holds). */
  remaining: number;
}

/** Where a skipped kept record is told: the receiver's `onError`. */
type Report = PipelineSettings['report'];

/** The store's `kept()`, telling `report` of each record it had to skip. */
function keptOf(
  store: KudosDedupeStore,
  report: Report,
): (limit: number) => Promise<KudosKeptNotification[]> {
  const kept = store.kept?.bind(store);
  if (!kept || !store.keep) {
    throw new TypeError(
      'this dedupe store keeps no unprocessed notifications: it needs keep() and kept() (MemoryDedupeStore, SqliteDedupeStore and RedisDedupeStore have them)',
    );
  }
  const unreadable = (key: string, reason: string) =>
    report(keptUnreadable(key, reason, 'skipped'), undefined);
  return (limit) => kept(limit, unreadable);
}

/** The notifications that passed verification and were not processed (failed, timed out, or cut off by a crash). */
export async function listUnprocessed(
  store: KudosDedupeStore,
  report: Report,
): Promise<KudosUnprocessedNotification[]> {
  const kept = await keptOf(store, report)(MAX_KEPT_READ);
  return kept.map(({ key, txHash, status, attempts, lastError, receivedAt }) => ({
    key,
    txHash,
    status,
    attempts,
    lastError,
    receivedAt,
  }));
}

/**
 * Runs every kept notification again through the same once-only processing as a delivery (its
 * confirmation, the handler), one at a time, oldest first. A key another delivery holds right now
 * is left for later; one processed meanwhile is done.
 */
export async function redrive(settings: PipelineSettings): Promise<KudosRedriveResult> {
  const kept = keptOf(settings.store, settings.report);
  let processed = 0;
  let failed = 0;
  for (const record of await kept(MAX_KEPT_READ)) {
    try {
      await observeNotification('redrive', (message) =>
        runNotification(settings, {
          body: record.body,
          source: record.source,
          trusted: record.trusted,
          req: undefined,
          receivedAt: record.receivedAt,
          message,
        }),
      );
      processed++;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'in_progress') failed++;
      settings.report(asHandlerError(error), undefined);
    }
  }
  // Counted without telling onError again of what the first read skipped.
  const remaining = await keptOf(settings.store, () => undefined)(MAX_KEPT_READ);
  return { processed, failed, remaining: remaining.length };
}
