import { ExpiryQueue } from './expiry-queue.js';
import { hashKey, randomSeed } from './key-hash.js';

/**
 * What a dedupe store says of a key when a delivery tries to claim it: `claimed` (this caller may
 * process it now), `processing` (another delivery holds a lease on it and has not finished) or
 * `done` (processed within the dedupe TTL).
 */
export type KudosClaimResult = 'claimed' | 'processing' | 'done';

/**
 * Where the receiver remembers which notifications it is processing and has processed. Pluggable
 * so that several instances can share one (see `passport-kudos/redis`). Every method may reject
 * (the receiver answers 503 and the service retries).
 */
export interface KudosDedupeStore {
  /**
   * Claims `key` with a processing lease of `leaseMs`. Must be atomic: of concurrent callers, one
   * gets `claimed`; the others `processing`. A key whose lease expired may be claimed again; a
   * completed key answers `done` until its TTL ends. Any other answer is a store failure (503).
   */
  claim(key: string, leaseMs: number): Promise<KudosClaimResult>;
  /** Marks a claimed key processed, remembered for `ttlMs`. */
  complete(key: string, ttlMs: number): Promise<void>;
  /** Releases a claim whose processing failed, so that a redelivery is processed. */
  release(key: string): Promise<void>;
  /**
   * Optional but recommended: renews the lease of a key this caller still holds. The receiver calls
   * it while a handler runs, so a handler slower than the lease is never run twice at once.
   */
  extend?(key: string, leaseMs: number): Promise<void>;
}

/** Options of {@link MemoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /**
   * Most keys kept (default 100000). When full, expired keys go first; then the oldest completed key
   * is evicted even inside its TTL (counted in `evictions`, told to `onEvict`): a redelivery of it
   * would be processed again. Size it above the notifications you receive in one dedupe TTL.
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
 * thousand (BENCHMARKS.md, section 6): leases and completed keys are kept in two queues
 * ({@link ExpiryQueue}), each with one lifetime, so the oldest entry of each is also the first to
 * expire and expiry only ever looks at the front; a key is found through a hash index that touches
 * one cache line on a miss. Several instances need a shared store instead (see "Running several
 * instances").
 */
export class MemoryDedupeStore implements KudosDedupeStore {
  private readonly leases = new ExpiryQueue();
  private readonly done = new ExpiryQueue();
  private readonly seed = randomSeed();
  private readonly maxEntries: number;
  private readonly onEvict: ((key: string) => void) | undefined;
  private readonly now: () => number;
  private evicted = 0;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    const max = options.maxEntries ?? 100_000;
    if (!Number.isInteger(max) || max < 1) {
      throw new TypeError('MemoryDedupeStore option "maxEntries" must be a whole number of 1 or more');
    }
    this.maxEntries = max;
    this.onEvict = options.onEvict;
    this.now = options.now ?? Date.now;
  }

  /** Number of keys held (leases and completed keys). */
  get size(): number {
    return this.leases.size + this.done.size;
  }

  /** Keys evicted inside their TTL because the store was full. */
  get evictions(): number {
    return this.evicted;
  }

  async claim(key: string, leaseMs: number): Promise<KudosClaimResult> {
    const now = this.now();
    const hash = hashKey(key, this.seed);
    const doneUntil = this.done.get(key, hash);
    if (doneUntil !== undefined) {
      if (doneUntil > now) return 'done';
      this.done.delete(key, hash);
    }
    const leaseUntil = this.leases.get(key, hash);
    if (leaseUntil !== undefined) {
      if (leaseUntil > now) return 'processing';
      this.leases.delete(key, hash);
    }
    this.makeRoom(now);
    this.leases.set(key, hash, now + leaseMs);
    return 'claimed';
  }

  async extend(key: string, leaseMs: number): Promise<void> {
    const hash = hashKey(key, this.seed);
    if (this.leases.get(key, hash) === undefined) return;
    // Moved to the back: the queue stays in expiry order.
    this.leases.set(key, hash, this.now() + leaseMs);
  }

  async complete(key: string, ttlMs: number): Promise<void> {
    const now = this.now();
    const hash = hashKey(key, this.seed);
    this.leases.delete(key, hash);
    this.makeRoom(now);
    this.done.set(key, hash, now + ttlMs); // replaces an earlier record of the key, if any
  }

  async release(key: string): Promise<void> {
    this.leases.delete(key, hashKey(key, this.seed));
  }

  private makeRoom(now: number): void {
    this.leases.sweep(now);
    this.done.sweep(now);
    while (this.size >= this.maxEntries) {
      // Completed keys go before leases: a lease guards a handler that is running right now.
      const key = this.done.shift() ?? this.leases.shift();
      if (key === undefined) return;
      this.evicted++;
      this.onEvict?.(key);
    }
  }
}
