import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { checkPositive, type KudosError, storeUnusable } from 'kudos-core';

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

/**
 * Longest wait from a change to its checkpoint (its copy from the write-ahead log into the database
 * file itself). SQLite checkpoints on its own only once the log holds 1,000 pages (about 4 MB): a
 * receiver of a few payments an hour would keep every change in the `-wal` file alone, and anyone
 * who deleted it (thinking it a temporary file) would undo every payment since the start. With a
 * checkpoint at most a second after each change, deleting it loses at most that last second.
 */
export const CHECKPOINT_AFTER_MS = 1000;

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

/** What the file's start-up checks write: one row, so a file that cannot be written is found at start. */
const CHECK_SCHEMA = 'CREATE TABLE IF NOT EXISTS kudos_store (name TEXT PRIMARY KEY, value TEXT NOT NULL)';

/** The store cannot use the file at all: thrown at start, naming the file and the cause. */
function unusable(who: string, path: string, cause: unknown): KudosError {
  return storeUnusable(
    `${who} cannot use ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
    cause,
  );
}

/** What `PRAGMA quick_check` found wrong, or undefined when it answered "ok". */
function quickCheck(db: DatabaseSync): string | undefined {
  const found = db
    .prepare('PRAGMA quick_check(3)')
    .all()
    .map((row) => String(Object.values(row)[0]));
  return found.length === 1 && found[0] === 'ok' ? undefined : found.join('; ');
}

/**
 * One SQLite file of a store: checked options, WAL mode, the store's schema, prepared statements
 * made once, and write transactions that every process sharing the file sees atomically. Checked at
 * start (SQLite's `quick_check` and one real write), so a corrupt file or one that cannot be
 * written stops the app at start instead of answering 503 to every new payment; checkpointed as it
 * goes ({@link CHECKPOINT_AFTER_MS}).
 */
export class SqliteFile {
  private readonly db: DatabaseSync;
  private readonly statements: Record<string, StatementSync> = {};
  private closed = false;
  private checkpoint: NodeJS.Timeout | undefined;
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
    try {
      this.db = openDatabase(options.path, who);
    } catch (error) {
      if (error instanceof TypeError) throw error; // no node:sqlite: said as it is
      throw unusable(who, options.path, error);
    }
    try {
      this.db.exec(`PRAGMA busy_timeout = ${busy}`);
      const problem = quickCheck(this.db);
      if (problem !== undefined) throw new Error(`it fails SQLite's quick_check (corrupt?): ${problem}`);
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`);
      this.db.exec(schema);
      this.db.exec(CHECK_SCHEMA);
      this.write(() =>
        this.sql("INSERT OR REPLACE INTO kudos_store (name, value) VALUES ('opened_by', ?)").run(who),
      );
    } catch (error) {
      this.close();
      throw unusable(who, options.path, error);
    }
  }

  /** A prepared statement, made once. Every use may change the file: a checkpoint follows within a second. */
  sql(text: string): StatementSync {
    this.checkpoint ??= setTimeout(() => this.checkpointNow(), CHECKPOINT_AFTER_MS).unref();
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

  /**
   * Copies the write-ahead log into the database file, as far as no reader holds it back (PASSIVE:
   * never waits for another process). A failure is left for the next one: nothing is lost by it.
   */
  private checkpointNow(): void {
    this.checkpoint = undefined;
    if (this.closed) return;
    try {
      this.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch {
      // busy or full: the log still holds every change, and the next checkpoint tries again
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.checkpoint);
    this.checkpoint = undefined;
    this.db.close();
  }
}
