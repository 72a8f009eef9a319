import { checkPositive } from 'kudos-core';
import type {
  KudosClaimContext,
  KudosClaimResult,
  KudosDedupeStore,
  KudosKeptNotification,
} from '../../core/dedupe.js';
import { checkClaimContext, DedupeStoreFullError } from '../../core/dedupe.js';
import { mergeKept } from '../kept-record.js';
import { ExpiryQueue } from './expiry-queue.js';
import { hashKey, randomSeed } from './key-hash.js';

/** Most checkpoints kept (one per address `reconcileChain()` reads). */
const MAX_CHECKPOINTS = 1024;

/** Options of {@link MemoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /**
   * Most keys kept (default 100000), and most unprocessed notifications kept besides. When full,
   * expired keys go first; then the oldest completed untrusted key, and only for a trusted claim
   * the oldest completed trusted key, even inside its TTL (counted in `evictions`, told to
   * `onEvict`): a redelivery of it would be processed again. An untrusted claim never evicts a
   * trusted key: it is refused instead (503, the sender retries). Size it above the notifications
   * you receive in one dedupe TTL.
   */
  maxEntries?: number;
  /** Told of every key evicted inside its TTL, e.g. to log or count it. */
  onEvict?: (key: string) => void;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

/**
 * The default dedupe store: in memory, for one process, bounded in size and time. Every operation
 * is O(1) amortized, and a notification costs within 1.5x with a million keys what it costs with a
 * thousand (BENCHMARKS.md): leases and completed keys are kept in queues
 * ({@link ExpiryQueue}), each with one lifetime, so the oldest entry of each is also the first to
 * expire and expiry only ever looks at the front; a key is found through a hash index that touches
 * one cache line on a miss. Completed keys of trusted notifications (secret checked, or confirmed on
 * the chain) and of untrusted ones are kept apart, so that a flood of forged notifications evicts
 * only its own kind. Several instances need a shared store instead (see "Running several instances").
 */
export class MemoryDedupeStore implements KudosDedupeStore {
  private readonly leases = new ExpiryQueue();
  private readonly owners = new Map<string, string>();
  private readonly trustedDone = new ExpiryQueue();
  private readonly untrustedDone = new ExpiryQueue();
  private readonly keptTrusted = new Map<string, { record: KudosKeptNotification; until: number }>();
  private readonly keptUntrusted = new Map<string, { record: KudosKeptNotification; until: number }>();
  private readonly seed = randomSeed();
  private readonly checkpoints = new Map<string, { value: string; until: number }>();
  private readonly maxEntries: number;
  private readonly onEvict: ((key: string) => void) | undefined;
  private readonly now: () => number;
  private evicted = 0;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    this.maxEntries = checkPositive(options.maxEntries ?? 100_000, 'MemoryDedupeStore option "maxEntries"', {
      whole: true,
    });
    this.onEvict = options.onEvict;
    this.now = options.now ?? Date.now;
  }

  /** Number of keys held (leases and completed keys). */
  get size(): number {
    return this.leases.size + this.trustedDone.size + this.untrustedDone.size;
  }

  /** Keys evicted inside their TTL because the store was full. */
  get evictions(): number {
    return this.evicted;
  }

  async claim(key: string, leaseMs: number, claim: KudosClaimContext): Promise<KudosClaimResult> {
    checkClaimContext(claim, 'MemoryDedupeStore');
    const now = this.now();
    const hash = hashKey(key, this.seed);
    for (const done of [this.trustedDone, this.untrustedDone]) {
      const until = done.get(key, hash);
      if (until === undefined) continue;
      if (until > now) return 'done';
      done.delete(key, hash);
    }
    const leaseUntil = this.leases.get(key, hash);
    if (leaseUntil !== undefined) {
      if (leaseUntil > now) return 'processing';
      this.leases.delete(key, hash);
    }
    this.makeRoom(now, claim.trusted);
    this.leases.set(key, hash, now + leaseMs);
    this.owners.set(key, claim.token);
    if (claim.keep) await this.keep(claim.keep.record, claim.keep.ttlMs);
    return 'claimed';
  }

  readonly keepsOnClaim = true;

  async extend(key: string, leaseMs: number, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'MemoryDedupeStore');
    const hash = hashKey(key, this.seed);
    if (this.leases.get(key, hash) === undefined || !this.holds(key, claim)) return;
    // Moved to the back: the queue stays in expiry order.
    this.leases.set(key, hash, this.now() + leaseMs);
  }

  async complete(key: string, ttlMs: number, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'MemoryDedupeStore');
    const now = this.now();
    const hash = hashKey(key, this.seed);
    const leaseUntil = this.leases.get(key, hash);
    // Someone else holds the key now (this claim's lease ran out and it was claimed again).
    if (leaseUntil !== undefined && leaseUntil > now && !this.holds(key, claim)) return;
    this.leases.delete(key, hash);
    this.owners.delete(key);
    this.keptTrusted.delete(key);
    this.keptUntrusted.delete(key);
    this.makeRoom(now, claim.trusted);
    (claim.trusted ? this.untrustedDone : this.trustedDone).delete(key, hash);
    // Replaces an earlier record of the key, if any.
    (claim.trusted ? this.trustedDone : this.untrustedDone).set(key, hash, now + ttlMs);
  }

  async release(key: string, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'MemoryDedupeStore');
    if (!this.holds(key, claim)) return;
    this.leases.delete(key, hashKey(key, this.seed));
    this.owners.delete(key);
  }

  async keep(record: KudosKeptNotification, ttlMs: number): Promise<void> {
    const now = this.now();
    const hash = hashKey(record.key, this.seed);
    if (
      (this.trustedDone.get(record.key, hash) ?? 0) > now ||
      (this.untrustedDone.get(record.key, hash) ?? 0) > now
    ) {
      return; // processed meanwhile: nothing to keep
    }
    const existing = this.keptTrusted.get(record.key) ?? this.keptUntrusted.get(record.key);
    const merged = mergeKept(existing?.record, record);
    this.keptTrusted.delete(record.key);
    this.keptUntrusted.delete(record.key);
    const into = merged.trusted ? this.keptTrusted : this.keptUntrusted;
    if (!existing && !this.roomToKeep(now, merged.trusted)) return;
    into.set(record.key, {
      record: merged,
      until: existing ? Math.max(existing.until, now + ttlMs) : now + ttlMs,
    });
  }

  async kept(limit: number): Promise<KudosKeptNotification[]> {
    const now = this.now();
    const found: KudosKeptNotification[] = [];
    for (const map of [this.keptTrusted, this.keptUntrusted]) {
      for (const [key, entry] of map) {
        if (entry.until <= now) map.delete(key);
        else found.push({ ...entry.record });
      }
    }
    return found.sort((a, b) => a.receivedAt - b.receivedAt).slice(0, limit);
  }

  async checkpoint(name: string): Promise<string | null> {
    const saved = this.checkpoints.get(name);
    return saved !== undefined && saved.until > this.now() ? saved.value : null;
  }

  async saveCheckpoint(name: string, value: string, ttlMs: number): Promise<void> {
    this.checkpoints.delete(name);
    // A checkpoint per address read: a handful; bounded all the same, the oldest saved first out.
    if (this.checkpoints.size >= MAX_CHECKPOINTS) {
      const [oldest] = this.checkpoints.keys();
      if (oldest !== undefined) this.checkpoints.delete(oldest);
    }
    this.checkpoints.set(name, { value, until: this.now() + ttlMs });
  }

  private holds(key: string, claim: KudosClaimContext): boolean {
    const owner = this.owners.get(key);
    return owner === undefined || owner === claim.token;
  }

  /** Whether one more kept record fits: an untrusted one may push out only untrusted ones. */
  private roomToKeep(now: number, trusted: boolean): boolean {
    for (const map of [this.keptUntrusted, this.keptTrusted]) {
      for (const [key, entry] of map) {
        if (entry.until > now) break; // insertion order: the rest are younger (same TTL)
        map.delete(key);
      }
    }
    if (this.keptTrusted.size + this.keptUntrusted.size < this.maxEntries) return true;
    const victims = trusted && this.keptUntrusted.size === 0 ? this.keptTrusted : this.keptUntrusted;
    const oldest = victims.keys().next();
    if (oldest.done) return false;
    victims.delete(oldest.value);
    this.evicted++;
    this.onEvict?.(oldest.value);
    return true;
  }

  private makeRoom(now: number, trusted: boolean): void {
    this.leases.sweep(now);
    this.trustedDone.sweep(now);
    this.untrustedDone.sweep(now);
    while (this.size >= this.maxEntries) {
      // Untrusted completed keys first; trusted ones only for a trusted claim; leases last (a lease
      // guards a handler that is running right now).
      const key =
        this.untrustedDone.shift() ??
        (trusted ? (this.trustedDone.shift() ?? this.leases.shift()) : undefined);
      if (key === undefined) throw new DedupeStoreFullError();
      this.owners.delete(key);
      this.evicted++;
      this.onEvict?.(key);
    }
  }
}
