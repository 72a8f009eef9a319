import type { KudosOrderStore, KudosOrderStoreChange, KudosOrderStoreRecord } from './order-store.js';

/** Options of {@link MemoryOrderStore}. */
export interface MemoryOrderStoreOptions {
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

interface Entry extends KudosOrderStoreRecord {
  until: number;
}

/** Expired records are swept at most this often (reads drop the ones they meet before). */
const SWEEP_EVERY_MS = 60_000;

/**
 * The default order store: in this process's memory, lost on a restart (a paid order's record
 * with it). For one instance in production use `SqliteOrderStore`; for several, `RedisOrderStore`.
 */
export class MemoryOrderStore implements KudosOrderStore {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  /** Listed IDs with when each was first listed, in that order (a Map keeps insertion order). */
  private readonly listedIds = new Map<string, number>();
  private sweptAt: number;

  constructor(options: MemoryOrderStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.sweptAt = this.now();
  }

  private live(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry && entry.until <= this.now()) {
      this.entries.delete(id);
      this.listedIds.delete(id);
      return undefined;
    }
    return entry;
  }

  /** Drops what expired, once a minute at most: memory stays bounded by what a minute brings. */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    for (const [id, entry] of this.entries) {
      if (entry.until <= now) {
        this.entries.delete(id); // deleting while iterating a Map is defined: the walk goes on
        this.listedIds.delete(id);
      }
    }
  }

  async read(id: string): Promise<KudosOrderStoreRecord | undefined> {
    const entry = this.live(id);
    return entry && { value: entry.value, version: entry.version };
  }

  async write(changes: readonly KudosOrderStoreChange[]): Promise<boolean> {
    this.sweep();
    // All or none: every version is checked before anything changes (one thread: nothing comes between).
    if (!changes.every((c) => (this.live(c.id)?.version ?? null) === c.version)) return false;
    for (const { id, version, value, ttlMs, listed } of changes) {
      const until = ttlMs === null ? Number.POSITIVE_INFINITY : this.now() + ttlMs;
      this.entries.set(id, { value, version: (version ?? 0) + 1, until });
      if (!listed) this.listedIds.delete(id);
      else if (!this.listedIds.has(id)) this.listedIds.set(id, this.now()); // a listed one keeps its place
    }
    return true;
  }

  async listedCount(prefix: string): Promise<{ count: number; oldestListedAt: number | null }> {
    let count = 0;
    let oldestListedAt: number | null = null;
    for (const [id, listedAt] of [...this.listedIds]) {
      if (!id.startsWith(prefix) || !this.live(id)) continue;
      count++;
      oldestListedAt ??= listedAt; // the first met is the oldest: the map keeps the listing order
    }
    return { count, oldestListedAt };
  }

  async listed(limit: number): Promise<Array<{ id: string; value: string }>> {
    const listed: Array<{ id: string; value: string }> = [];
    for (const id of [...this.listedIds.keys()]) {
      if (listed.length >= limit) break;
      const entry = this.live(id);
      if (entry) listed.push({ id, value: entry.value });
    }
    return listed;
  }
}
