import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KudosError } from '../../../../src/index.js';
import { describeSqlite, HAS_SQLITE } from '../../../../test/helpers/sqlite.js';
import type { KudosKeptNotification } from '../../src/index.js';
import { SqliteDedupeStore, sqliteAvailable } from '../../src/sqlite/index.js';

// A SQLite store on a file it cannot use says so at start, naming the file and the cause, instead
// of starting and answering 503 to every new payment; and a kept row it cannot read never blocks one.

const DIST_SQLITE = resolve(import.meta.dirname, '../../dist/esm/sqlite/index.js');

/** A kept record of `hash`, as the receiver keeps a notification. */
function keptRecord(hash: string): KudosKeptNotification {
  return {
    key: `${hash}:success`,
    txHash: hash,
    status: 'success',
    attempts: 1,
    lastError: null,
    receivedAt: Date.now(),
    body: { tx: { txHash: hash } },
    source: 'webhook',
    trusted: true,
  };
}

/** Fills a file with keys, so that it has pages beyond its first to scribble on. */
async function filled(path: string): Promise<void> {
  const store = new SqliteDedupeStore({ path });
  for (let i = 0; i < 300; i++) {
    const key = `${String(i).padStart(64, '0')}:success`;
    await store.claim(key, 60_000, { token: `t${i}`, trusted: true });
    await store.complete(key, 3_600_000, { token: `t${i}`, trusted: true });
  }
  store.close(); // checkpointed: everything is in the file itself
}

describeSqlite('SqliteDedupeStore on a file it cannot use', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-sqlite-bad-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The error the constructor throws for `path`. */
  function refusal(path: string): KudosError {
    try {
      new SqliteDedupeStore({ path }).close();
    } catch (error) {
      expect(error).toBeInstanceOf(KudosError);
      return error as KudosError;
    }
    throw new Error(`SqliteDedupeStore accepted ${path}`);
  }

  it('a folder that does not exist: store_unusable at start, naming the file', () => {
    const path = join(dir, 'no-such-folder', 'webhook.db');
    const error = refusal(path);
    expect(error.code).toBe('store_unusable');
    expect(error.message).toContain(`SqliteDedupeStore cannot use ${path}: `);
  });

  it('a database file scribbled after a checkpoint: found by quick_check at start, not at the first payment', async () => {
    const path = join(dir, 'scribbled.db');
    await filled(path);
    expect(statSync(path).size).toBeGreaterThan(3 * 4096);
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 2 * 4096); // page 3: garbage
    closeSync(fd);
    const error = refusal(path);
    expect(error.code).toBe('store_unusable');
    expect(error.message).toMatch(
      new RegExp(
        `^SqliteDedupeStore cannot use ${path}: (it fails SQLite's quick_check \\(corrupt\\?\\)|database disk image is malformed)`,
      ),
    );
  });

  it('a file that is not a database at all: store_unusable naming it', () => {
    const path = join(dir, 'not-a-database.db');
    const fd = openSync(path, 'w');
    writeSync(fd, 'these are not the pages you are looking for'.repeat(200));
    closeSync(fd);
    const error = refusal(path);
    expect(error.code).toBe('store_unusable');
    expect(error.message).toContain(`cannot use ${path}: file is not a database`);
  });

  it('a read-only folder (a read-only bind mount): store_unusable at start, naming the file and the cause', async () => {
    const folder = mkdtempSync(join(dir, 'ro-'));
    const path = join(folder, 'webhook.db');
    await filled(path);
    // The built store, in a process whose view of the folder is a read-only bind mount (root, as in CI:
    // file permissions alone would not stop root).
    const script = `import(${JSON.stringify(DIST_SQLITE)}).then(({ SqliteDedupeStore }) => {
      try { new SqliteDedupeStore({ path: ${JSON.stringify(path)} }); console.log(JSON.stringify({ started: true })); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }
    })`;
    const run = spawnSync(
      'unshare',
      [
        '--mount',
        'sh',
        '-c',
        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" -e "$3"',
        'sh',
        folder,
        process.execPath,
        script,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.stderr).not.toMatch(/Error|mount:/); // (node:sqlite warns that it is experimental: a warning)
    const answer = JSON.parse(run.stdout) as { code?: string; message?: string; started?: boolean };
    expect(answer.started).toBeUndefined();
    expect(answer.code).toBe('store_unusable');
    expect(answer.message).toMatch(
      new RegExp(`^SqliteDedupeStore cannot use ${path}: .*(readonly|read-only|unable to open)`),
    );
    // The same file in a writable folder is fine: the refusal was the mount's.
    new SqliteDedupeStore({ path }).close();
  });

  it('a kept row it cannot read is replaced by the next claim of its payment, told once, never an error', async () => {
    const path = join(dir, 'unreadable-row.db');
    const store = new SqliteDedupeStore({ path });
    const hash = 'F'.repeat(64);
    const record = keptRecord(hash);
    await store.keep({ ...record, lastError: 'handler_failed: boom' }, 60_000);
    const raw = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(path);
    raw.prepare("UPDATE kudos_kept SET record = '{cut off', attempts = 'many' WHERE key = ?").run(record.key);
    raw.close();
    const told: string[] = [];
    const answer = await store.claim(record.key, 60_000, {
      token: 'redelivery',
      trusted: true,
      keep: { record, ttlMs: 60_000 },
      unreadable: (key, reason) => told.push(`${key}: ${reason}`),
    });
    expect(answer).toBe('claimed');
    expect(told).toEqual([`${record.key}: not JSON`]);
    expect(await store.kept(10)).toEqual([{ ...record, attempts: 1 }]); // readable again, counted anew
    store.close();
  });
});

it('sqliteAvailable() answers whether this Node has node:sqlite, as the tests tell it from the version', () => {
  expect(sqliteAvailable()).toBe(HAS_SQLITE);
});
