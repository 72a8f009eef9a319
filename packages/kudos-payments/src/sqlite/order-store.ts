import type {
  KudosOrderStore,
  KudosOrderStoreChange,
  KudosOrderStoreRecord,
} from '../payments/order-store.js';
import { SqliteFile, type SqliteStoreOptions } from './database.js';

/**
 * Expired records are swept every this many writes, up to {@link SWEEP_LIMIT} at a time: four times
 * what those writes can have added (an order makes one to three rows), so the table never grows past
 * what is live plus a sweep's worth, however long it runs. No index on the expiry: each write would
 * rewrite an index page too (a third more disk writes per payment), so the sweep scans the table.
 */
const SWEEP_EVERY = 256;
const SWEEP_LIMIT = 4 * 3 * SWEEP_EVERY;

/** Options of {@link SqliteOrderStore}: the same as the dedupe store's, and the same file may hold both. */
export type SqliteOrderStoreOptions = SqliteStoreOptions;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kudos_orders (
  id TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  version INTEGER NOT NULL,
  until INTEGER,
  listed_at INTEGER
) WITHOUT ROWID;
DROP INDEX IF EXISTS kudos_orders_listed;
CREATE INDEX IF NOT EXISTS kudos_orders_listed_until ON kudos_orders (listed_at, until) WHERE listed_at IS NOT NULL;
`;

const until = (change: KudosOrderStoreChange, now: number) =>
  change.ttlMs === null ? null : now + change.ttlMs;

/**
 * The orders and payment decisions of `kudosPayments()` in one SQLite file (Node's built-in
 * `node:sqlite`): durable for a single instance, across restarts and a `kill -9`. It may share the
 * file of the `SqliteDedupeStore`. Several processes on one machine may share it; several machines
 * need `RedisOrderStore`.
 */
export class SqliteOrderStore implements KudosOrderStore {
  private readonly file: SqliteFile;
  private writesSinceSweep = 0;

  constructor(options: SqliteOrderStoreOptions) {
    this.file = new SqliteFile(options, 'SqliteOrderStore', SCHEMA);
    // The count of writes is this process's: a process that restarts often would never reach it,
    // so what expired is also swept at each start.
    this.sweep(this.file.now());
  }

  /** Removes expired records, {@link SWEEP_LIMIT} at most. */
  private sweep(now: number): void {
    this.file
      .sql('DELETE FROM kudos_orders WHERE id IN (SELECT id FROM kudos_orders WHERE until <= ? LIMIT ?)')
      .run(now, SWEEP_LIMIT);
  }

  async read(id: string): Promise<KudosOrderStoreRecord | undefined> {
    const row = this.file
      .sql('SELECT value, version FROM kudos_orders WHERE id = ? AND (until IS NULL OR until > ?)')
      .get(id, this.file.now());
    return row && { value: String(row.value), version: Number(row.version) };
  }

  /**
   * Applies every change of `changes` or none. The writes asked for in the same turn of the event
   * loop are committed together (group commit): one disk sync for all of them, each still all or
   * none (a savepoint of its own) and each answered only once the commit is durable. Under load,
   * a payment's decision then shares its sync with the others' and with the `fulfilled` marks.
   */
  write(changes: readonly KudosOrderStoreChange[]): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ changes, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private pending: Array<{
    changes: readonly KudosOrderStoreChange[];
    resolve: (applied: boolean) => void;
    reject: (error: unknown) => void;
  }> = [];

  /** Commits the writes gathered in this turn, in the order they were asked for. */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    const now = this.file.now();
    const [first] = batch;
    let applied: boolean[];
    try {
      // One change of a record read before: one UPDATE checks the version and writes (SQLite runs a
      // statement atomically), without a transaction around it.
      const single = batch.length === 1 && first?.changes.length === 1 && first.changes[0]?.version !== null;
      applied = single
        ? [this.update(first.changes[0] as KudosOrderStoreChange, now) === 1]
        : this.file.write(() => batch.map(({ changes }) => this.applyAll(changes, now)));
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    for (const [i, { resolve }] of batch.entries()) resolve(applied[i] === true);
    this.writesSinceSweep += batch.length;
    if (this.writesSinceSweep >= SWEEP_EVERY) {
      this.writesSinceSweep = 0;
      this.sweep(now);
    }
  }

  /**
   * Applies `changes` inside the open transaction, all or none (a savepoint): each statement checks
   * its own record (its version, or no live record for an insert); the first that finds another
   * undoes the others. Answers whether they were applied.
   */
  private applyAll(changes: readonly KudosOrderStoreChange[], now: number): boolean {
    this.file.sql('SAVEPOINT kudos_change').run();
    const applied = changes.every(
      (change) => (change.version === null ? this.insert(change, now) : this.update(change, now)) === 1,
    );
    if (!applied) this.file.sql('ROLLBACK TO kudos_change').run();
    this.file.sql('RELEASE kudos_change').run();
    return applied;
  }

  /** Inserts a record unless a live one has its ID (an expired one is replaced); answers the rows changed. */
  private insert(change: KudosOrderStoreChange, now: number): number {
    const result = this.file
      .sql(
        `INSERT INTO kudos_orders (id, value, version, until, listed_at) VALUES (?, ?, 1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET value = excluded.value, version = 1, until = excluded.until,
           listed_at = excluded.listed_at
         WHERE kudos_orders.until IS NOT NULL AND kudos_orders.until <= ?`,
      )
      .run(change.id, change.value, until(change, now), change.listed ? now : null, now);
    return Number(result.changes);
  }

  /** Changes a record at its version (a listed one keeps its place); answers the rows changed, 0 or 1. */
  private update(change: KudosOrderStoreChange, now: number): number {
    const result = this.file
      .sql(
        `UPDATE kudos_orders SET value = ?, version = version + 1, until = ?,
           listed_at = CASE WHEN ? = 1 THEN coalesce(listed_at, ?) ELSE NULL END
         WHERE id = ? AND version = ? AND (until IS NULL OR until > ?)`,
      )
      .run(change.value, until(change, now), change.listed ? 1 : 0, now, change.id, change.version, now);
    return Number(result.changes);
  }

  async listed(limit: number): Promise<Array<{ id: string; value: string }>> {
    const rows = this.file
      .sql(
        `SELECT id, value FROM kudos_orders WHERE listed_at IS NOT NULL AND (until IS NULL OR until > ?)
         ORDER BY listed_at, id LIMIT ?`,
      )
      .all(this.file.now(), Math.max(0, Math.floor(limit)));
    return rows.map((row) => ({ id: String(row.id), value: String(row.value) }));
  }

  /**
   * How many live listed records have an ID starting with `prefix`, and the oldest one's listing time:
   * one query on the listed index (the ID and the expiry are in it), no record read.
   */
  async listedCount(prefix: string): Promise<{ count: number; oldestListedAt: number | null }> {
    const row = this.file
      .sql(
        `SELECT count(*) AS n, min(listed_at) AS oldest FROM kudos_orders INDEXED BY kudos_orders_listed_until
         WHERE listed_at IS NOT NULL AND substr(id, 1, ?) = ? AND (until IS NULL OR until > ?)`,
      )
      .get(prefix.length, prefix, this.file.now());
    const oldest = row?.oldest;
    return {
      count: Number(row?.n ?? 0),
      oldestListedAt: oldest === null || oldest === undefined ? null : Number(oldest),
    };
  }

  /** Closes the database file. */
  close(): void {
    this.file.close();
  }
}
