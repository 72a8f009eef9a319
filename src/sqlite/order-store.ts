import type {
  KudosOrderStore,
  KudosOrderStoreRecord,
  KudosOrderStoreWrite,
} from '../webhook/payments/order-store.js';
import { SqliteFile, type SqliteStoreOptions, SWEEP_BATCH, SWEEP_EVERY } from './database.js';

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
CREATE INDEX IF NOT EXISTS kudos_orders_until ON kudos_orders (until) WHERE until IS NOT NULL;
CREATE INDEX IF NOT EXISTS kudos_orders_listed ON kudos_orders (listed_at) WHERE listed_at IS NOT NULL;
`;

/**
 * The orders and payment decisions of `kudosPayments()` in one SQLite file (Node's built-in
 * `node:sqlite`): durable for a single instance, across restarts and a `kill -9`. It may share the
 * file of the `SqliteDedupeStore`. Several processes on one machine may share it; several machines
 * need `RedisOrderStore`.
 */
export class SqliteOrderStore implements KudosOrderStore {
  private readonly file: SqliteFile;
  private insertsSinceSweep = 0;

  constructor(options: SqliteOrderStoreOptions) {
    this.file = new SqliteFile(options, 'SqliteOrderStore', SCHEMA);
  }

  private until(write: KudosOrderStoreWrite, now: number): number | null {
    return write.ttlMs === null ? null : now + write.ttlMs;
  }

  async insert(id: string, value: string, write: KudosOrderStoreWrite): Promise<boolean> {
    const now = this.file.now();
    const saved = this.file.write(() => {
      const row = this.file.sql('SELECT until FROM kudos_orders WHERE id = ?').get(id);
      if (row && (row.until === null || Number(row.until) > now)) return false;
      this.file
        .sql(
          'INSERT OR REPLACE INTO kudos_orders (id, value, version, until, listed_at) VALUES (?, ?, 1, ?, ?)',
        )
        .run(id, value, this.until(write, now), write.listed ? now : null);
      return true;
    });
    if (++this.insertsSinceSweep >= SWEEP_EVERY) {
      this.insertsSinceSweep = 0;
      this.file
        .sql('DELETE FROM kudos_orders WHERE id IN (SELECT id FROM kudos_orders WHERE until <= ? LIMIT ?)')
        .run(now, SWEEP_BATCH);
    }
    return saved;
  }

  async read(id: string): Promise<KudosOrderStoreRecord | undefined> {
    const row = this.file
      .sql('SELECT value, version FROM kudos_orders WHERE id = ? AND (until IS NULL OR until > ?)')
      .get(id, this.file.now());
    return row && { value: String(row.value), version: Number(row.version) };
  }

  async replace(id: string, version: number, value: string, write: KudosOrderStoreWrite): Promise<boolean> {
    const now = this.file.now();
    // One statement: the version check and the write are atomic. A listed record keeps its place.
    const result = this.file
      .sql(
        `UPDATE kudos_orders SET value = ?, version = version + 1, until = ?,
           listed_at = CASE WHEN ? = 1 THEN coalesce(listed_at, ?) ELSE NULL END
         WHERE id = ? AND version = ? AND (until IS NULL OR until > ?)`,
      )
      .run(value, this.until(write, now), write.listed ? 1 : 0, now, id, version, now);
    return Number(result.changes) === 1;
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

  /** Closes the database file. */
  close(): void {
    this.file.close();
  }
}
