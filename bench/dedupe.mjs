// 6. Dedupe store at scale: cost per notification (claim + complete) of a MemoryDedupeStore that
// already holds 1,000 keys and one that holds 1,000,000, each kept full (every new key evicts the
// oldest, the case that scanned the whole map before), and the memory 1,000,000 keys take. The timed
// notifications follow an untimed warm-up and are more than the large store holds, so that its
// figure includes what a full store pays in the long run (compaction, major collections).
// Each size runs in its own process, so that the RSS figure is that store's alone.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ratio, summarize } from './lib/stats.mjs';

const self = fileURLToPath(import.meta.url);
/** Notifications sent before the timed ones, in steady state (a full store). */
const WARMUP = 100_000;

/** In the child: fills a store with `keys` keys, warms it up, then times `amount` new notifications. */
async function child(keys, amount) {
  const { MemoryDedupeStore } = await import('kudos-payments');
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  const store = new MemoryDedupeStore({ maxEntries: keys });
  const ttl = 7 * 24 * 3600 * 1000;
  // The claim context the receiver passes (a token per claim; here one per key, as cheap as it gets).
  const holder = (key) => ({ token: key, trusted: true });
  for (let i = 0; i < keys; i++) {
    const key = `${i.toString(16).padStart(64, '0')}:success`;
    await store.claim(key, 60_000, holder(key));
    await store.complete(key, ttl, holder(key));
  }
  global.gc?.();
  const rssFull = process.memoryUsage().rss;
  const heapFull = process.memoryUsage().heapUsed;
  const notify = async (from, count) => {
    for (let i = from; i < from + count; i++) {
      const key = `${i.toString(16).padStart(64, '0')}:success`;
      await store.claim(key, 60_000, holder(key));
      await store.complete(key, ttl, holder(key));
    }
  };
  // Untimed first: both sizes are timed with the code equally warm (filling a million keys would
  // otherwise warm the large store's code far more than a thousand warm the small one's).
  const warmup = Math.min(WARMUP, amount); // the smoke run stays small
  await notify(keys, warmup);
  const start = process.hrtime.bigint();
  await notify(keys + warmup, amount);
  const ns = Number(process.hrtime.bigint() - start);
  process.stdout.write(
    JSON.stringify({
      nsPerNotification: ns / amount,
      rssBytes: rssFull - rssBefore,
      heapBytes: heapFull - heapBefore,
      size: store.size,
    }),
  );
}

/** One measurement in a fresh process. */
function measure(keys, amount) {
  const run = spawnSync(process.execPath, ['--expose-gc', self, 'child', String(keys), String(amount)], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (run.status !== 0) throw new Error(`dedupe bench (${keys} keys) failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** @param {{ runs: number, small: number, large: number, amount: number }} size */
export function benchDedupe({ runs, small, large, amount }) {
  const sizes = [small, large];
  const samples = sizes.map(() => []);
  // Interleaved, as the cold start is: both sizes under the same conditions as the machine drifts.
  for (let r = 0; r < runs; r++)
    for (const [i, keys] of sizes.entries()) samples[i].push(measure(keys, amount));
  const results = sizes.map((keys, i) => ({
    keys,
    amount,
    nsPerNotification: summarize(samples[i].map((s) => s.nsPerNotification)),
    rssBytes: summarize(samples[i].map((s) => s.rssBytes)),
    heapBytes: summarize(samples[i].map((s) => s.heapBytes)),
  }));
  const [few, many] = results;
  return {
    sizes: results,
    ratio: ratio(many.nsPerNotification.median, few.nsPerNotification.median),
  };
}

if (process.argv[2] === 'child') await child(Number(process.argv[3]), Number(process.argv[4]));
