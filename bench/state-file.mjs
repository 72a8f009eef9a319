// 10. The emulator's --state file at scale: the cost of saving one change with 1,000 and with
// 100,000 transactions in the history (the file holds the small part, the history is appended).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startKudosEmulator } from 'kudos-emulator';
import { summarize } from './lib/stats.mjs';

const USERS = [
  { id: 'alice', password: 'wonderland' },
  { id: 'bobby', password: 'builder' },
];

/** ms per saved change (a user added, saved in the next turn) with `history` transactions. */
async function measure(history, changes) {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-bench-state-'));
  const file = join(dir, 'state.json');
  const kudos = await startKudosEmulator({ state: file, users: USERS, paymentDelayMs: 0 });
  try {
    for (let i = 0; i < history; i++) {
      kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
      if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
    }
    await kudos.idle();
    await new Promise((resolve) => setImmediate(resolve));
    const start = performance.now();
    for (let i = 0; i < changes; i++) {
      kudos.addUser({ id: `bench-user-${i}`, password: 'pw' });
      await new Promise((resolve) => setImmediate(resolve)); // the save runs in this turn
    }
    const msPerChange = (performance.now() - start) / changes;
    return { msPerChange, fileBytes: statSync(file).size, logBytes: statSync(`${file}.log`).size };
  } finally {
    await kudos.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {{ runs: number, sizes: [number, number], changes: number }} options */
export async function benchStateFile({ runs, sizes, changes }) {
  const results = sizes.map(() => ({ ms: [], fileBytes: 0, logBytes: 0 }));
  for (let run = 0; run < runs; run++) {
    for (const [i, history] of sizes.entries()) {
      const r = await measure(history, changes);
      results[i].ms.push(r.msPerChange);
      results[i].fileBytes = r.fileBytes;
      results[i].logBytes = r.logBytes;
    }
  }
  const rows = sizes.map((history, i) => ({
    transactions: history,
    msPerChange: summarize(results[i].ms),
    fileBytes: results[i].fileBytes,
    logBytes: results[i].logBytes,
  }));
  const ratio = Math.round((rows[1].msPerChange.median / rows[0].msPerChange.median) * 100) / 100;
  return { changes, rows, ratio };
}
