/**
 * Where the receiver remembers which notifications it has processed. Pluggable so that several
 * instances can share one (see `passport-kudos/redis`).
 */
export interface KudosDedupeStore {
  /**
   * Claims `key` for `ttlMs`; resolves true when this caller got it (not claimed, or expired).
   * Must be atomic: of concurrent callers, one gets true. With `complete`, `ttlMs` is a short
   * processing lease; without it, the claim is taken for the whole dedupe TTL at once.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Optional: marks a claimed key as processed, keeping it for `ttlMs`. With it, a claim whose
   * release failed (store down) expires after the short lease, so the redelivery is processed.
   */
  complete?(key: string, ttlMs: number): Promise<void>;
  /** Releases a claim, so that a redelivery of the same notification is processed. */
  release(key: string): Promise<void>;
}

/** Options of {@link MemoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /** Most keys kept; expired keys go first, then the oldest. Default 100000. */
  maxEntries?: number;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

/**
 * The default dedupe store: in memory, for one process, bounded in size and time.
 * Several instances need a shared store instead (see "Running several instances").
 */
export class MemoryDedupeStore implements KudosDedupeStore {
  private readonly expiries = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  /** Number of keys held. */
  get size(): number {
    return this.expiries.size;
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const until = this.expiries.get(key);
    if (until !== undefined && until > now) return false;
    this.expiries.delete(key);
    if (this.expiries.size >= this.maxEntries) this.evict(now);
    this.expiries.set(key, now + ttlMs);
    return true;
  }

  async complete(key: string, ttlMs: number): Promise<void> {
    this.expiries.delete(key);
    this.expiries.set(key, this.now() + ttlMs);
  }

  async release(key: string): Promise<void> {
    this.expiries.delete(key);
  }

  private evict(now: number): void {
    for (const [key, until] of this.expiries) if (until <= now) this.expiries.delete(key);
    // Still full: drop the oldest claims (Map keeps insertion order).
    for (const key of this.expiries.keys()) {
      if (this.expiries.size < this.maxEntries) break;
      this.expiries.delete(key);
    }
  }
}
