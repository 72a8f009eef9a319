import { isRecord } from 'kudos-core';
import { TX_STATUSES } from 'kudos-core/chain';
import type { KudosKeptNotification } from '../core/dedupe.js';

// The one home of a kept notification's rules, for every dedupe store: what a readable record is,
// and how a keep merges into the record kept already. The memory store merges here; the SQLite
// store (in SQL) and the Redis store (in Lua) merge inside their own transaction, and
// KEPT_MERGE_CASES, run by the store contract against all three, holds them to the same rule.

/**
 * Merges a kept record with an update, as `KudosDedupeStore.keep()` says: attempts add up, a
 * non-null `lastError` replaces the kept one, the first arrival stays, trusted once trusted.
 */
export function mergeKept(
  existing: KudosKeptNotification | undefined,
  update: KudosKeptNotification,
): KudosKeptNotification {
  if (!existing) return { ...update };
  return {
    ...update,
    attempts: existing.attempts + update.attempts,
    lastError: update.lastError ?? existing.lastError,
    receivedAt: Math.min(existing.receivedAt, update.receivedAt),
    trusted: existing.trusted || update.trusted,
  };
}

/** What one keep changes of a record, in a case of {@link KEPT_MERGE_CASES}. */
type KeepStep = Partial<Pick<KudosKeptNotification, 'attempts' | 'lastError' | 'receivedAt' | 'trusted'>>;

/** One case of the merge rule: keeps made in order, and what is listed after them. */
interface KeptMergeCase {
  name: string;
  keeps: readonly KeepStep[];
  expected: Required<KeepStep>;
}

/** The merge rule as cases, for every store (the store contract runs each against each store). */
export const KEPT_MERGE_CASES: readonly KeptMergeCase[] = [
  {
    name: 'a first keep is listed as it was kept',
    keeps: [{ attempts: 1, lastError: null, receivedAt: 1000, trusted: true }],
    expected: { attempts: 1, lastError: null, receivedAt: 1000, trusted: true },
  },
  {
    name: 'attempts add up (a failure of a kept claim adds none)',
    keeps: [{ attempts: 1 }, { attempts: 0, lastError: 'handler_failed: a' }, { attempts: 1 }],
    expected: { attempts: 2, lastError: 'handler_failed: a', receivedAt: 1000, trusted: true },
  },
  {
    name: 'a later error replaces the kept one; a keep without one keeps it',
    keeps: [
      { lastError: 'handler_failed: a' },
      { attempts: 0, lastError: 'handler_timeout: b' },
      { attempts: 1 },
    ],
    expected: { attempts: 2, lastError: 'handler_timeout: b', receivedAt: 1000, trusted: true },
  },
  {
    name: 'the first arrival stays, whichever keep names it',
    keeps: [{ receivedAt: 3000 }, { attempts: 1, receivedAt: 1000 }, { attempts: 1, receivedAt: 2000 }],
    expected: { attempts: 3, lastError: null, receivedAt: 1000, trusted: true },
  },
  {
    name: 'trusted once trusted: a later untrusted keep does not undo it',
    keeps: [{ trusted: false }, { attempts: 0, trusted: true }, { attempts: 0, trusted: false }],
    expected: { attempts: 1, lastError: null, receivedAt: 1000, trusted: true },
  },
];

/**
 * Why `candidate` is not a kept notification (a record edited by hand, another program's key), or
 * undefined when it is one. Every store reads its records back through this one check.
 */
export function keptRecordProblem(candidate: unknown): string | undefined {
  if (!isRecord(candidate)) return 'not an object';
  const fields: Array<[string, boolean]> = [
    ['key', typeof candidate.key === 'string'],
    ['txHash', typeof candidate.txHash === 'string'],
    ['status', TX_STATUSES.includes(candidate.status as never)],
    ['source', candidate.source === 'webhook' || candidate.source === 'reconcile'],
    ['attempts', Number.isSafeInteger(candidate.attempts) && (candidate.attempts as number) >= 0],
    ['lastError', candidate.lastError === null || typeof candidate.lastError === 'string'],
    ['receivedAt', Number.isFinite(candidate.receivedAt)],
    ['trusted', typeof candidate.trusted === 'boolean'],
  ];
  const wrong = fields.find(([, ok]) => !ok);
  return wrong ? `its "${wrong[0]}" is not a kept notification's` : undefined;
}
