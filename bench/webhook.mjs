// 3. Webhook receiver: notifications/s and p99 through kudosWebhook against a bare express.json() route.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from './lib/load.mjs';
import { startApp } from './lib/procs.mjs';
import { summarize } from './lib/stats.mjs';

const sample = JSON.parse(
  readFileSync(new URL('../test/fixtures/notifications/sample.json', import.meta.url), 'utf8'),
);

/**
 * The sample with a distinct hash per request, so that no delivery is a duplicate: zero-padded (an
 * 'A' pad made 0xAB and 0xAAB the same hash, about 6% duplicates).
 */
function body(i) {
  return JSON.stringify({
    ...sample,
    tx: { ...sample.tx, txHash: (i + 1).toString(16).toUpperCase().padStart(64, '0') },
  });
}

async function measure(mode, amount, warmup, env) {
  const app = await startApp('webhook', { MODE: mode, ...env });
  try {
    const url = `http://127.0.0.1:${app.port}`;
    const request = (offset) => (req, i) => ({
      ...req,
      method: 'POST',
      path: '/hook',
      headers: { 'content-type': 'application/json' },
      body: body(offset + i),
    });
    await load({ url, amount: warmup, setupRequest: request(0), expectStatus: 200 });
    return await load({ url, amount, setupRequest: request(warmup), expectStatus: 200 });
  } finally {
    await app.stop();
  }
}

/** @param {{ runs: number, amount: number, warmup: number, redisURL?: string }} options */
export async function benchWebhook({ runs, amount, warmup, redisURL }) {
  const variants = [
    { name: 'express.json() route, answers 200 (baseline)', mode: 'bare' },
    { name: 'kudosWebhook, in-memory dedupe', mode: 'kudos' },
    { name: 'kudosWebhook, SQLite dedupe (synchronous full, the default)', mode: 'kudos-sqlite' },
    { name: 'kudosWebhook, SQLite dedupe (synchronous normal)', mode: 'kudos-sqlite-normal' },
  ];
  if (redisURL) variants.push({ name: 'kudosWebhook, Redis dedupe', mode: 'kudos-redis' });
  const samples = variants.map(() => ({ rps: [], p99: [] }));
  const storeDir = mkdtempSync(join(tmpdir(), 'kudos-bench-sqlite-'));
  try {
    for (let run = 0; run < runs; run++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (run + k) % variants.length;
        const v = variants[i];
        const r = await measure(v.mode, amount, warmup, { REDIS_URL: redisURL ?? '', STORE_DIR: storeDir });
        samples[i].rps.push(r.rps);
        samples[i].p99.push(r.p99);
      }
    }
  } finally {
    rmSync(storeDir, { recursive: true, force: true });
  }
  return variants.map((v, i) => ({
    name: v.name,
    rps: summarize(samples[i].rps),
    p99: summarize(samples[i].p99),
  }));
}
