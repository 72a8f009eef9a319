/**
 * Where `kudosPayments()` keeps its orders and what became of each payment: a small store of
 * versioned records that any database can implement (three methods). The payments layer owns what
 * the records say (`records.ts`); a store only keeps text under an ID, applies a set of changes all
 * or none, each at the version its caller read (compare-and-set), and lists the records marked for
 * the app's look.
 */

/** A record as read: its text and its version (1 when inserted, one more at each change). */
export interface KudosOrderStoreRecord {
  value: string;
  version: number;
}

/** One change of {@link KudosOrderStore.write}. */
export interface KudosOrderStoreChange {
  id: string;
  /** The version the caller read; null: an insert, only while no live record has this ID. */
  version: number | null;
  value: string;
  /** Milliseconds from now; null keeps it until a change gives it a TTL. */
  ttlMs: number | null;
  /** Listed by `listed()` (a payment that needs the app's look) until a change says `false`. */
  listed: boolean;
}

/**
 * The store of `kudosPayments()`: `MemoryOrderStore` (one process; the default),
 * `SqliteOrderStore` (`kudos-payments/sqlite`), `RedisOrderStore` (`kudos-payments/redis`), or
 * your own. `orderStoreContract()` of `kudos-payments/testing` checks one. Every method may reject:
 * the notification is then answered 503 and the service retries.
 */
export interface KudosOrderStore {
  /** The live record under `id`, or undefined (never written, or its TTL ended). */
  read(id: string): Promise<KudosOrderStoreRecord | undefined>;
  /**
   * Applies every change or none, atomically: all only when each record is at the change's
   * `version` (absent, for null). Resolves whether it applied them. Two writers that read the same
   * version never both succeed; an order is credited and its payment recorded in one step.
   */
  write(changes: readonly KudosOrderStoreChange[]): Promise<boolean>;
  /** The listed records, in the order they were first listed (oldest first), at most `limit`. */
  listed(limit: number): Promise<Array<{ id: string; value: string }>>;
  /**
   * Optional: how many live listed records have an ID that starts with `prefix`, and when the oldest
   * of them was first listed (epoch ms; null when there is none), in a bounded number of reads (an
   * index, not a parse of each record): `status()` reads the exceptions' figures with it, whatever
   * their number. Without it, `status()` reads them through `listed()`.
   */
  listedCount?(prefix: string): Promise<{ count: number; oldestListedAt: number | null }>;
  /**
   * Optional: rejects when the store cannot take a write now (a full Redis, a policy that may evict),
   * with the reason; `status()` then answers `storeOk: false`.
   */
  health?(): Promise<void>;
}
