// What the receiver benchmarks share: apps that take POSTed notifications, each measured in turn.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from './load.mjs';
import { startApp } from './procs.mjs';
import { summarize } from './stats.mjs';

/**
 * Starts `bench/apps/<app>.mjs` with `env`, warms it up with `warmup` notifications and measures
 * `amount` more (notification i's body is `body(i)`, a new one each), then stops it.
 */
export async function measureReceiver({ app: name, env, path, body, amount, warmup }) {
  const app = await startApp(name, env);
  try {
    const url = `http://127.0.0.1:${app.port}`;
    const request = (offset) => (req, i) => ({
      ...req,
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: body(offset + i),
    });
    await load({ url, amount: warmup, setupRequest: request(0), expectStatus: 200 });
    return await load({ url, amount, setupRequest: request(warmup), expectStatus: 200 });
  } finally {
    await app.stop();
  }
}

/**
 * Measures every variant `runs` times, in turns whose order rotates run by run (so no variant
 * always runs first or last), each with a fresh store folder; answers each variant with the
 * medians (and ranges) of its notifications/s and p99.
 */
export async function measureVariants(variants, runs, measure) {
  const samples = variants.map(() => ({ rps: [], p99: [] }));
  const storeDir = mkdtempSync(join(tmpdir(), 'kudos-bench-store-'));
  try {
    for (let run = 0; run < runs; run++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (run + k) % variants.length;
        const r = await measure(variants[i], storeDir);
        samples[i].rps.push(r.rps);
        samples[i].p99.push(r.p99);
      }
    }
  } finally {
    rmSync(storeDir, { recursive: true, force: true });
  }
  return variants.map((v, i) => ({ ...v, rps: summarize(samples[i].rps), p99: summarize(samples[i].p99) }));
}
