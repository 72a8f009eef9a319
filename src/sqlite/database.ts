import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { checkPositive } from '../base/numbers.js';

/** Options of the SQLite stores (`SqliteDedupeStore`, `SqliteOrderStore`): one file may hold both. */
export interface SqliteStoreOptions {
  /** The database file (created when missing, with its `-wal` and `-shm` files beside it). */
  path: string;
  /**
   * SQLite's `synchronous` setting. `full` (SQLite's default, and this store's) makes every
   * committed change survive a power loss; `normal` survives a crash or `kill -9` of the process
   * (not of the machine) and writes several times faster.
   */
  synchronous?: 'full' | 'normal';
  /** How long a write waits for another process holding the file, in milliseconds; default 5000. */
  busyTimeoutMs?: number;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

/** Expired rows are swept, a batch at a time (an index range: cheap), every this many writes. */
export const SWEEP_EVERY = 256;
export const SWEEP_BATCH = 512;

/** `node:sqlite`, or undefined on a Node without it. */
function loadSqlite(): typeof import('node:sqlite') | undefined {
  try {
    return process.getBuiltinModule('node:sqlite');
  } catch {
    return undefined;
  }
}

/**
 * Whether this Node has `node:sqlite` (22.13 and later), which the SQLite stores need: an app that
 * also runs on an older Node picks another store (and says so) instead of failing at start.
 */
export function sqliteAvailable(): boolean {
  return typeof loadSqlite()?.DatabaseSync === 'function';
}

/**
 * Opens a database file with `node:sqlite`, loaded on first use (Node 22.13+ has it without a
 * flag): on an older Node, a `TypeError` that names the store and the Node version, not a crash at
 * import time of the package.
 */
function openDatabase(path: string, who: string): DatabaseSync {
  const sqlite = loadSqlite();
  if (!sqlite?.DatabaseSync) {
    throw new TypeError(
      `${who} needs node:sqlite, built into Node.js 22.13 and later (this is ${process.version})`,
    );
  }
  return new sqlite.DatabaseSync(path);
}

/**
 * One SQLite file of a store: checked options, WAL mode, the store's schema, prepared statements
 * made once, and write transactions that every process sharing the file sees atomically.
 */
export class SqliteFile {
  private readonly db: DatabaseSync;
  private readonly statements: Record<string, StatementSync> = {};
  private closed = false;
  readonly now: () => number;

  constructor(options: SqliteStoreOptions, who: string, schema: string) {
    if (typeof options?.path !== 'string' || options.path === '') {
      throw new TypeError(`${who} requires "path", the database file`);
    }
    const synchronous = options.synchronous ?? 'full';
    if (synchronous !== 'full' && synchronous !== 'normal') {
      throw new TypeError(`${who} option "synchronous" must be "full" or "normal"`);
    }
    const busy = checkPositive(options.busyTimeoutMs ?? 5000, `${who} option "busyTimeoutMs"`, {
      whole: true,
    });
    this.now = options.now ?? Date.now;
    this.db = openDatabase(options.path, who);
    try {
      this.db.exec(`PRAGMA busy_timeout = ${busy}`);
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`);
      this.db.exec(schema);
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** A prepared statement, made once. */
  sql(text: string): StatementSync {
    let statement = this.statements[text];
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements[text] = statement;
    }
    return statement;
  }

  /** Runs `work` in one write transaction: atomic for every process that shares the file. */
  write<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // SQLite rolled back already (e.g. after SQLITE_FULL)
      }
      throw error;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
