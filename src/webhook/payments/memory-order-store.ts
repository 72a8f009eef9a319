import type { KudosOrderStore, KudosOrderStoreRecord, KudosOrderStoreWrite } from './order-store.js';

/** Options of {@link MemoryOrderStore}. */
export interface MemoryOrderStoreOptions {
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

interface Entry extends KudosOrderStoreRecord {
  until: number;
}

/** Expired records are swept every this many inserts (reads drop the ones they meet). */
const SWEEP_EVERY = 256;

/**
 * The default order store: in this process's memory, lost on a restart (a paid order's record
 * with it). For one instance in production use `SqliteOrderStore`; for several, `RedisOrderStore`.
 */
export class MemoryOrderStore implements KudosOrderStore {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  /** Listed IDs, in the order they were first listed (a Set keeps insertion order). */
  private readonly listedIds = new Set<string>();
  private insertsSinceSweep = 0;

  constructor(options: MemoryOrderStoreOptions = {}) {
    this.now = options.now ?? Date.now;
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

  private sweep(): void {
    if (++this.insertsSinceSweep < SWEEP_EVERY) return;
    this.insertsSinceSweep = 0;
    for (const id of [...this.entries.keys()]) this.live(id);
  }

  private save(id: string, value: string, version: number, write: KudosOrderStoreWrite): void {
    const until = write.ttlMs === null ? Number.POSITIVE_INFINITY : this.now() + write.ttlMs;
    this.entries.set(id, { value, version, until });
    if (!write.listed) this.listedIds.delete(id);
    else this.listedIds.add(id); // a listed one keeps its place
  }

  async insert(id: string, value: string, write: KudosOrderStoreWrite): Promise<boolean> {
    this.sweep();
    if (this.live(id)) return false;
    this.save(id, value, 1, write);
    return true;
  }

  async read(id: string): Promise<KudosOrderStoreRecord | undefined> {
    const entry = this.live(id);
    return entry && { value: entry.value, version: entry.version };
  }

  async replace(id: string, version: number, value: string, write: KudosOrderStoreWrite): Promise<boolean> {
    const entry = this.live(id);
    if (!entry || entry.version !== version) return false;
    this.save(id, value, version + 1, write);
    return true;
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
