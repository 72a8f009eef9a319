import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { describeSqlite } from '../../../../test/helpers/sqlite.js';
import { SqliteOrderStore } from '../../src/sqlite/index.js';

// SqliteOrderStore catches up with expiry: under steady traffic it deletes expired rows faster than it
// writes new ones, so the file and every listed() stay bounded by what is live (a real file on disk).

const require = createRequire(import.meta.url);

/** The rows the file holds, live or expired, counted by another connection (as an operator would). */
function rowsIn(path: string): { all: number; listed: number } {
  const { DatabaseSync } = require('node:sqlite') as typeof import('node:sqlite');
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const all = Number(db.prepare('SELECT count(*) AS n FROM kudos_orders').get()?.n);
    const listed = Number(
      db.prepare('SELECT count(*) AS n FROM kudos_orders WHERE listed_at IS NOT NULL').get()?.n,
    );
    return { all, listed };
  } finally {
    db.close();
  }
}

describeSqlite('SqliteOrderStore under steady traffic', () => {
  let dir: string | undefined;
  let store: SqliteOrderStore | undefined;
  afterEach(() => {
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = store = undefined;
  });

  it('24,000 orders that all expired leave at most a few thousand rows, and listed() skips none it must list', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-order-expiry-'));
    const path = join(dir, 'orders.db');
    let now = 1_800_000_000_000;
    store = new SqliteOrderStore({ path, synchronous: 'normal', now: () => now });
    const open = store;
    // 240 turns of 100 writes: each order lives 2,000 ms of a clock that moves 1 ms a write, and a tenth
    // of them are listed (exceptions), so expired listed rows pile up too unless they are swept.
    for (let turn = 0; turn < 240; turn++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          now += 1;
          const n = turn * 100 + i;
          return open.write([
            { id: `order:${n}`, version: null, value: `order ${n}`, ttlMs: 2000, listed: n % 10 === 0 },
          ]);
        }),
      );
    }
    const rows = rowsIn(path);
    // Live: the last 2,000 written; the rest are gone but for what one sweep leaves behind.
    expect(rows.all).toBeLessThanOrEqual(2000 + 3 * 1024);
    expect(rows.listed).toBeLessThanOrEqual(200 + (3 * 1024) / 10 + 400);
    const listed = await open.listed(1000);
    expect(listed.length).toBe(200); // every live listed record, none expired
    expect(listed.every(({ id }) => Number(id.slice(6)) >= 24_000 - 2000)).toBe(true);
    expect(await open.listedCount('order:')).toMatchObject({ count: 200 });
  });

  it('eight restarts of 200 expiring orders each leave at most 600 expired rows (swept at each start)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-order-expiry-'));
    const path = join(dir, 'orders.db');
    let now = 1_800_000_000_000;
    for (let restart = 0; restart < 8; restart++) {
      store?.close();
      store = new SqliteOrderStore({ path, synchronous: 'normal', now: () => now });
      const open = store;
      // Fewer writes than a process's own sweep waits for: only the sweep at start clears the last ones.
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          open.write([
            { id: `order:${restart}:${i}`, version: null, value: 'order', ttlMs: 1000, listed: false },
          ]),
        ),
      );
      now += 5000; // every order of this process has expired before the next one starts
    }
    expect(rowsIn(path).all).toBeLessThanOrEqual(600);
  });
});
