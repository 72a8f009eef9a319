/**
 * Where `kudosPayments()` keeps its orders and what became of each payment: a small store of
 * versioned records that any database can implement (four methods). The payments layer owns what
 * the records say (`records.ts`); a store only keeps text under an ID, changes it only at the
 * version the caller read (compare-and-set), and lists the records marked for the app's look.
 */

/** A record as read: its text and its version (1 when inserted, one more at each replace). */
export interface KudosOrderStoreRecord {
  value: string;
  version: number;
}

/** How long a record is kept and whether it is listed. */
export interface KudosOrderStoreWrite {
  /** Milliseconds from now; null keeps it until it is replaced with a TTL. */
  ttlMs: number | null;
  /** Listed by `listed()` (a payment that needs the app's look) until replaced with `false`. */
  listed: boolean;
}

/**
 * The store of `kudosPayments()`: `MemoryOrderStore` (one process; the default),
 * `SqliteOrderStore` (`passport-kudos/sqlite`), `RedisOrderStore` (`passport-kudos/redis`), or
 * your own. `orderStoreContract()` of `passport-kudos/testing` checks one. Every method may reject:
 * the notification is then answered 503 and the service retries.
 */
export interface KudosOrderStore {
  /** Saves `value` under `id` unless a live record is there; resolves whether it saved. Atomic. */
  insert(id: string, value: string, write: KudosOrderStoreWrite): Promise<boolean>;
  /** The live record under `id`, or undefined (never written, or its TTL ended). */
  read(id: string): Promise<KudosOrderStoreRecord | undefined>;
  /**
   * Replaces the record under `id` only while it is at `version`, and resolves whether it did:
   * two writers that read the same version never both succeed. Atomic.
   */
  replace(id: string, version: number, value: string, write: KudosOrderStoreWrite): Promise<boolean>;
  /** The listed records, in the order they were first listed (oldest first), at most `limit`. */
  listed(limit: number): Promise<Array<{ id: string; value: string }>>;
}
