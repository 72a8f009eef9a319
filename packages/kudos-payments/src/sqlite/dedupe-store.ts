import { isRecord } from 'kudos-core';
import type {
  KudosClaimContext,
  KudosClaimResult,
  KudosDedupeStore,
  KudosKeptNotification,
  KudosUnreadableKept,
} from '../core/dedupe.js';
import { checkClaimContext } from '../core/dedupe.js';
import { keptRecordProblem } from '../stores/kept-record.js';
import { SqliteFile, type SqliteStoreOptions, SWEEP_BATCH, SWEEP_EVERY } from './database.js';
import { SqliteOrderStore } from './order-store.js';

/** Options of {@link SqliteDedupeStore}. */
export type SqliteDedupeStoreOptions = SqliteStoreOptions;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kudos_claims (
  key TEXT PRIMARY KEY,
  token TEXT,
  done INTEGER NOT NULL,
  trusted INTEGER NOT NULL,
  until INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS kudos_claims_until ON kudos_claims (until);
CREATE TABLE IF NOT EXISTS kudos_kept (
  key TEXT PRIMARY KEY,
  received_at INTEGER NOT NULL,
  until INTEGER NOT NULL,
  trusted INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  last_error TEXT,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kudos_kept_received ON kudos_kept (received_at);
CREATE INDEX IF NOT EXISTS kudos_kept_until ON kudos_kept (until);
CREATE TABLE IF NOT EXISTS kudos_checkpoints (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  until INTEGER NOT NULL
) WITHOUT ROWID;
`;

type Row = Record<string, unknown>;

/** What a kept row holds besides its columns: enough to list it and to run it again. */
interface StoredRecord {
  txHash: string;
  status: KudosKeptNotification['status'];
  source: KudosKeptNotification['source'];
  body: unknown;
}

/** A kept row read back, or why it is not one this store wrote (it is skipped, not fatal). */
function readKept(row: Row): KudosKeptNotification | string {
  let stored: unknown;
  try {
    stored = JSON.parse(String(row.record));
  } catch {
    return 'not JSON';
  }
  if (!isRecord(stored) || !Number.isFinite(Number(row.until ?? 0))) {
    return 'not a kept notification of SqliteDedupeStore';
  }
  const kept = {
    key: String(row.key),
    txHash: stored.txHash,
    status: stored.status,
    source: stored.source,
    body: stored.body,
    attempts: Number(row.attempts),
    lastError: typeof row.last_error === 'string' ? row.last_error : null,
    receivedAt: Number(row.received_at),
    trusted: row.trusted === 1,
  };
  // The one check of every store (webhook/kept-record.ts).
  const problem = keptRecordProblem(kept);
  return problem
    ? `not a kept notification of SqliteDedupeStore: ${problem}`
    : (kept as KudosKeptNotification);
}

/**
 * A webhook dedupe store in one SQLite file, on Node's built-in `node:sqlite` (no dependency, nothing
 * to build): the durable choice for a single instance. Claims, leases, completed keys and the
 * notifications the handler could not process survive a restart and a `kill -9` (the file is in
 * WAL mode, each change one transaction). Several processes on one machine may share the file
 * (claims take SQLite's write lock: `BEGIN IMMEDIATE`); instances on several machines need Redis.
 *
 * Every method runs synchronously inside (SQLite is local): a write waits at most `busyTimeoutMs`
 * for another process, and any SQLite error rejects (the receiver answers 503, the sender retries).
 */
export class SqliteDedupeStore implements KudosDedupeStore {
  private readonly file: SqliteFile;
  private readonly options: SqliteDedupeStoreOptions;
  private readonly now: () => number;
  private claimsSinceSweep = 0;

  readonly keepsOnClaim = true;

  constructor(options: SqliteDedupeStoreOptions) {
    this.file = new SqliteFile(options, 'SqliteDedupeStore', SCHEMA);
    this.options = { ...options };
    this.now = this.file.now;
    // The count of claims is this process's: what expired is also swept at each start.
    this.sweep(this.now());
  }

  /**
   * The order store of `kudosPayments()` in this store's file, on a connection of its own. Its
   * commits skip the sync to disk (`synchronous: 'normal'`) and lose nothing for it: every order
   * change of a notification comes before that notification's completion, a full commit of this
   * store that syncs the file's write-ahead log, those changes included; a power loss before it
   * leaves the notification unprocessed, and it runs again. Close it with this store.
   */
  orderStore(): SqliteOrderStore {
    return new SqliteOrderStore({ ...this.options, synchronous: 'normal' });
  }

  async claim(key: string, leaseMs: number, claim: KudosClaimContext): Promise<KudosClaimResult> {
    checkClaimContext(claim, 'SqliteDedupeStore');
    const now = this.now();
    const answer = this.file.write((): KudosClaimResult => {
      const row = this.file.sql('SELECT done, until FROM kudos_claims WHERE key = ?').get(key);
      if (row && Number(row.until) > now) return row.done === 1 ? 'done' : 'processing';
      this.file
        .sql('INSERT OR REPLACE INTO kudos_claims (key, token, done, trusted, until) VALUES (?, ?, 0, ?, ?)')
        .run(key, claim.token, claim.trusted ? 1 : 0, now + leaseMs);
      if (claim.keep) this.keepRow(claim.keep.record, claim.keep.ttlMs, now, claim.unreadable);
      return 'claimed';
    });
    if (++this.claimsSinceSweep >= SWEEP_EVERY) {
      this.claimsSinceSweep = 0;
      this.sweep(now);
    }
    return answer;
  }

  async extend(key: string, leaseMs: number, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'SqliteDedupeStore');
    const now = this.now();
    this.file
      .sql('UPDATE kudos_claims SET until = ? WHERE key = ? AND done = 0 AND until > ? AND token = ?')
      .run(now + leaseMs, key, now, claim.token);
  }

  async complete(key: string, ttlMs: number, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'SqliteDedupeStore');
    const now = this.now();
    this.file.write(() => {
      const row = this.file.sql('SELECT token, done, until FROM kudos_claims WHERE key = ?').get(key);
      // Someone else holds the key now (this claim's lease ran out and it was claimed again).
      const heldByOther =
        row !== undefined && row.done === 0 && Number(row.until) > now && row.token !== claim.token;
      if (heldByOther) return;
      this.file
        .sql(
          'INSERT OR REPLACE INTO kudos_claims (key, token, done, trusted, until) VALUES (?, NULL, 1, ?, ?)',
        )
        .run(key, claim.trusted ? 1 : 0, now + ttlMs);
      this.file.sql('DELETE FROM kudos_kept WHERE key = ?').run(key);
    });
  }

  async release(key: string, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'SqliteDedupeStore');
    this.file.sql('DELETE FROM kudos_claims WHERE key = ? AND done = 0 AND token = ?').run(key, claim.token);
  }

  async keep(record: KudosKeptNotification, ttlMs: number, unreadable?: KudosUnreadableKept): Promise<void> {
    const now = this.now();
    this.file.write(() => {
      const claim = this.file.sql('SELECT done, until FROM kudos_claims WHERE key = ?').get(record.key);
      if (claim && claim.done === 1 && Number(claim.until) > now) return; // processed meanwhile
      this.keepRow(record, ttlMs, now, unreadable);
    });
  }

  /**
   * Creates or merges a kept row, as {@link KudosDedupeStore.keep} says; inside a transaction. A row
   * it cannot read is replaced as if absent (and told): never an error that blocks the payment.
   */
  private keepRow(
    record: KudosKeptNotification,
    ttlMs: number,
    now: number,
    unreadable: KudosUnreadableKept | undefined,
  ): void {
    const row = this.file
      .sql(
        'SELECT key, attempts, last_error, received_at, trusted, until, record FROM kudos_kept WHERE key = ?',
      )
      .get(record.key);
    const problem = row === undefined ? undefined : readKept(row);
    if (typeof problem === 'string') unreadable?.(record.key, problem);
    const old = problem === undefined || typeof problem === 'string' ? undefined : row;
    const live = old !== undefined && Number(old.until) > now;
    const stored: StoredRecord = {
      txHash: record.txHash,
      status: record.status,
      source: record.source,
      body: record.body,
    };
    this.file
      .sql(
        `INSERT OR REPLACE INTO kudos_kept (key, received_at, until, trusted, attempts, last_error, record)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.key,
        live ? Math.min(Number(old.received_at), record.receivedAt) : record.receivedAt,
        live ? Math.max(Number(old.until), now + ttlMs) : now + ttlMs,
        record.trusted || (live && old.trusted === 1) ? 1 : 0,
        (live ? Number(old.attempts) : 0) + record.attempts,
        record.lastError ?? (live && typeof old.last_error === 'string' ? old.last_error : null),
        JSON.stringify(stored),
      );
  }

  async kept(limit: number, unreadable?: KudosUnreadableKept): Promise<KudosKeptNotification[]> {
    const now = this.now();
    this.file.sql('DELETE FROM kudos_kept WHERE until <= ?').run(now);
    const rows = this.file
      .sql(
        `SELECT key, received_at, trusted, attempts, last_error, record FROM kudos_kept
       ORDER BY received_at, key LIMIT ?`,
      )
      .all(Math.max(0, Math.floor(limit)));
    const found: KudosKeptNotification[] = [];
    for (const row of rows) {
      const kept = readKept(row);
      if (typeof kept !== 'string') found.push(kept);
      else unreadable?.(String(row.key), kept);
    }
    return found;
  }

  async checkpoint(name: string): Promise<string | null> {
    const row = this.file.sql('SELECT value, until FROM kudos_checkpoints WHERE name = ?').get(name);
    return row !== undefined && Number(row.until) > this.now() ? String(row.value) : null;
  }

  async saveCheckpoint(name: string, value: string, ttlMs: number): Promise<void> {
    this.file
      .sql('INSERT OR REPLACE INTO kudos_checkpoints (name, value, until) VALUES (?, ?, ?)')
      .run(name, value, this.now() + ttlMs);
  }

  /** Removes expired claims and completed keys, a batch at a time (an index range: cheap). */
  private sweep(now: number): void {
    this.file
      .sql('DELETE FROM kudos_claims WHERE key IN (SELECT key FROM kudos_claims WHERE until <= ? LIMIT ?)')
      .run(now, SWEEP_BATCH);
  }

  /** Closes the database file. */
  close(): void {
    this.file.close();
  }
}
