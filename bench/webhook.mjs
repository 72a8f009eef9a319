// 3. Webhook receiver: notifications/s and p99 through kudosWebhook against a bare express.json() route.
import { readFileSync } from 'node:fs';
import { runnable } from './lib/sqlite.mjs';
import { measureReceiver, measureVariants } from './lib/variants.mjs';

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

/** @param {{ runs: number, amount: number, warmup: number, redisURL?: string }} options */
export async function benchWebhook({ runs, amount, warmup, redisURL }) {
  const variants = [
    { name: 'express.json() route, answers 200 (baseline)', mode: 'bare' },
    { name: 'kudosWebhook, in-memory dedupe', mode: 'kudos' },
    {
      name: 'kudosWebhook, SQLite dedupe (synchronous full, the default)',
      mode: 'kudos-sqlite',
      sqlite: true,
    },
    { name: 'kudosWebhook, SQLite dedupe (synchronous normal)', mode: 'kudos-sqlite-normal', sqlite: true },
  ];
  if (redisURL) variants.push({ name: 'kudosWebhook, Redis dedupe', mode: 'kudos-redis' });
  // The in-memory receiver again, its tracing channels subscribed to (compared with it in section 3).
  variants.push(
    {
      name: 'kudosWebhook, in-memory dedupe, every tracing channel subscribed',
      mode: 'kudos',
      subscribe: 'channels',
    },
    { name: 'kudosWebhook, in-memory dedupe, passport-kudos/otel', mode: 'kudos', subscribe: 'otel' },
  );
  const measured = await measureVariants(runnable(variants), runs, (v, storeDir) =>
    measureReceiver({
      app: 'webhook',
      env: { MODE: v.mode, REDIS_URL: redisURL ?? '', STORE_DIR: storeDir, SUBSCRIBE: v.subscribe ?? '' },
      path: '/hook',
      body,
      amount,
      warmup,
    }),
  );
  return measured.map(({ name, rps, p99 }) => ({ name, rps, p99 }));
}
