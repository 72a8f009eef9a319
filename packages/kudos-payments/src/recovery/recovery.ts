import type {
  KudosDedupeStore,
  KudosKeptNotification,
  KudosUnprocessedNotification,
} from '../core/dedupe.js';
import { keptUnreadable } from '../core/errors.js';
import { observeNotification } from '../core/observe.js';
import { type PipelineSettings, runNotification } from '../core/pipeline.js';
import { asHandlerError } from '../core/process-once.js';

/**
 * What each receiver's `redrive()` remembers between runs: the kept keys it has told `onError`
 * another run holds (told once each), and the one run it has planned for when their leases end.
 */
interface RedriveMemory {
  told: Set<string>;
  planned: ReturnType<typeof setTimeout> | undefined;
}
const memories = new WeakMap<PipelineSettings, RedriveMemory>();

function memoryOf(settings: PipelineSettings): RedriveMemory {
  let memory = memories.get(settings);
  if (!memory) {
    memory = { told: new Set(), planned: undefined };
    memories.set(settings, memory);
  }
  return memory;
}

/**
 * One more `redrive()` once the leases it met have run out (a lease is renewed every third of it
 * while its run lives): a run whose process died holding one (a crash, a deploy) is taken over
 * within `leaseMs`, not at the app's next scheduled call. One planned at a time; it keeps no
 * process alive, and what it meets still held plans the next.
 */
function planRedrive(settings: PipelineSettings, memory: RedriveMemory): void {
  if (memory.planned) return;
  memory.planned = setTimeout(
    () => {
      memory.planned = undefined;
      redrive(settings).catch((error: unknown) => settings.report(asHandlerError(error), undefined));
    },
    settings.leaseMs + Math.ceil(settings.leaseMs / 10),
  );
  memory.planned.unref?.();
}

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
 * confirmation, the handler), one at a time, oldest first. A key another run holds right now is
 * tried again once its lease has ended (see planRedrive); one processed meanwhile is done.
 */
export async function redrive(settings: PipelineSettings): Promise<KudosRedriveResult> {
  const kept = keptOf(settings.store, settings.report);
  const memory = memoryOf(settings);
  const held = memory.told;
  let processed = 0;
  let failed = 0;
  let heldNow = false;
  const records = await kept(MAX_KEPT_READ);
  // A key no longer kept is not held by anyone any more: forgotten, so the set stays bounded.
  const keys = new Set(records.map((r) => r.key));
  for (const key of held) if (!keys.has(key)) held.delete(key);
  for (const record of records) {
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
      held.delete(record.key);
    } catch (error) {
      // Another run (a delivery, another instance's redrive, or one whose process is gone) holds it:
      // tried again when its lease ends, and told once, not at every run for as long as it lasts.
      if ((error as { code?: unknown }).code === 'in_progress') {
        heldNow = true;
        if (held.has(record.key)) continue;
        held.add(record.key);
      } else {
        failed++;
        held.delete(record.key);
      }
      settings.report(asHandlerError(error), undefined);
    }
  }
  if (heldNow) planRedrive(settings, memory);
  // Counted without telling onError again of what the first read skipped.
  const remaining = await keptOf(settings.store, () => undefined)(MAX_KEPT_READ);
  return { processed, failed, remaining: remaining.length };
}
