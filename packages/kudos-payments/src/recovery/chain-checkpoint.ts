// How far `reconcileChain()` has read the chain for one address, remembered in the dedupe store
// (shared by every instance that shares the store) so that a run costs what is new since the last
// one, not the whole window again; and what a run that stopped halfway had read, so that the next
// one goes on from there. Heights, not times or offsets, say what was read: a block's height never
// changes, while a page's offset moves as new transfers arrive.
import { isRecord } from 'kudos-core';
import type { KudosDedupeStore } from '../core/dedupe.js';

/** What one scan of an unfinished run had read: every transfer at a height in (`below`, `top`]. */
export interface ScanFrame {
  /** The newest height the run saw (its first page). */
  top: number;
  /** The lowest height it read every transfer of... those at `below` itself may be only in part. */
  below: number;
  /** How many transfers are at heights in (`below`, `top`]: where, in the listing, `below` starts. */
  above: number;
}

/** How far the chain was read for one address. */
export interface ChainCheckpoint {
  /** Every transfer at a height up to this one was read by a run that finished; null: none has. */
  done: number | null;
  /** A run that stopped before the end of its window. */
  frame?: ScanFrame;
  /** Transactions read that could not be decided (a payer's lookup, the confirmation or the store failed): read again first. */
  retry: string[];
}

/**
 * Most transactions a checkpoint keeps to read again by hash; the rest are never dropped: the
 * checkpoint stays below the oldest of them, so the next run's search reads them again.
 */
export const MAX_RETRY = 200;

const HEX_HASH = /^[0-9A-F]{64}$/;

function height(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A checkpoint read back, or undefined when the text is not one this package wrote. */
export function readCheckpoint(text: string | null | undefined): ChainCheckpoint | undefined {
  if (typeof text !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || value.v !== 1) return undefined;
  const done = value.done === null ? null : height(value.done) ? value.done : undefined;
  const retry = Array.isArray(value.retry)
    ? value.retry.filter((h) => typeof h === 'string' && HEX_HASH.test(h))
    : [];
  if (done === undefined) return undefined;
  const f = value.frame;
  const frame =
    isRecord(f) && height(f.top) && height(f.below) && height(f.above) && f.below <= f.top
      ? { top: f.top, below: f.below, above: f.above }
      : undefined;
  return { done, retry: retry.slice(0, MAX_RETRY), ...(frame ? { frame } : {}) };
}

/** The text a checkpoint is saved as. */
export function writeCheckpoint(checkpoint: ChainCheckpoint): string {
  return JSON.stringify({ v: 1, ...checkpoint });
}

/**
 * The checkpoints of a receiver: in its dedupe store when the store has `checkpoint()` and
 * `saveCheckpoint()`, else in this process (a store of someone else's making may have neither).
 */
export class ChainCheckpoints {
  private readonly local = new Map<string, string>();

  constructor(
    private readonly store: KudosDedupeStore,
    private readonly ttlMs: number,
  ) {}

  async read(name: string): Promise<ChainCheckpoint | undefined> {
    const { store } = this;
    const text =
      store.checkpoint && store.saveCheckpoint ? await store.checkpoint(name) : this.local.get(name);
    return readCheckpoint(text);
  }

  async save(name: string, checkpoint: ChainCheckpoint): Promise<void> {
    const text = writeCheckpoint(checkpoint);
    const { store } = this;
    if (store.checkpoint && store.saveCheckpoint) await store.saveCheckpoint(name, text, this.ttlMs);
    else this.local.set(name, text);
  }
}
