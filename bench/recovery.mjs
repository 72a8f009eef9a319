// 9. Recovery: unprocessed() and redrive() with 100,000 kept notifications, in MemoryDedupeStore and
// in SqliteDedupeStore (synchronous normal: at full, every one of the 200,000 commits waits for the disk).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { kudosWebhook, MemoryDedupeStore } from 'kudos-payments';
import { SqliteDedupeStore } from 'kudos-payments/sqlite';
import { HAS_SQLITE } from './lib/sqlite.mjs';
import { summarize } from './lib/stats.mjs';

const sample = JSON.parse(
  readFileSync(new URL('../test/fixtures/notifications/sample.json', import.meta.url), 'utf8'),
);

/** A store holding `kept` unprocessed notifications (claimed, kept, released: as a failed handler leaves them). */
async function filledStore(kept, make) {
  const store = make();
  for (let i = 0; i < kept; i++) {
    const txHash = `C${(i + 1).toString(16).toUpperCase().padStart(63, '0')}`; // distinct for every i
    const key = `${txHash}:success`;
    const claim = { token: `t${i}`, trusted: true };
    await store.claim(key, 60_000, claim);
    await store.keep(
      {
        key,
        txHash,
        status: 'success',
        attempts: 1,
        lastError: 'handler_failed: the shop database is down',
        receivedAt: Date.now(),
        body: { ...sample, tx: { ...sample.tx, txHash } },
        source: 'webhook',
        trusted: true,
      },
      7 * 24 * 3600 * 1000,
    );
    await store.release(key, claim);
  }
  return store;
}

/** @param {{ runs: number, kept: number }} options */
export async function benchRecovery({ runs, kept }) {
  const memory = await measureRecovery({
    runs,
    kept,
    make: () => new MemoryDedupeStore({ maxEntries: kept * 2 }),
  });
  if (!HAS_SQLITE) return memory;
  const dir = mkdtempSync(join(tmpdir(), 'kudos-bench-recovery-'));
  try {
    let n = 0;
    const sqlite = await measureRecovery({
      runs,
      kept,
      make: () => new SqliteDedupeStore({ path: join(dir, `kept-${n++}.db`), synchronous: 'normal' }),
    });
    return { ...memory, sqlite };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {{ runs: number, kept: number, make: () => import('kudos-payments').KudosDedupeStore }} options */
async function measureRecovery({ runs, kept, make }) {
  const list = [];
  const drive = [];
  for (let run = 0; run < runs; run++) {
    let handled = 0;
    const store = await filledStore(kept, make);
    const hook = kudosWebhook({ store, secret: false, onNotification: () => void handled++ });
    let t = performance.now();
    const unprocessed = await hook.unprocessed();
    list.push(performance.now() - t);
    if (unprocessed.length !== kept) throw new Error(`unprocessed() listed ${unprocessed.length} of ${kept}`);
    t = performance.now();
    const result = await hook.redrive();
    drive.push(performance.now() - t);
    if (result.processed !== kept || handled !== kept || result.remaining !== 0) {
      throw new Error(`redrive() answered ${JSON.stringify(result)} after ${handled} handler calls`);
    }
    store.close?.();
  }
  return { kept, unprocessedMs: summarize(list), redriveMs: summarize(drive) };
}
