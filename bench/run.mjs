// npm run bench: measures passport-kudos side by side with what users would pick instead, and writes
// bench/results.json and BENCHMARKS.md. `--smoke` runs every section with tiny amounts into
// test-results/bench-smoke/ (used by npm test, so the harness keeps working).
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { benchChainScan } from './chain-scan.mjs';
import { benchColdStart } from './coldstart.mjs';
import { benchDedupe } from './dedupe.mjs';
import { benchEmulator } from './emulator.mjs';
import { benchFootprint } from './footprint.mjs';
import { benchHealth } from './health.mjs';
import { pinning } from './lib/pin.mjs';
import { benchRedis } from './lib/redis.mjs';
import { benchLinear } from './linear.mjs';
import { benchLogin } from './login.mjs';
import { benchPayments } from './payments.mjs';
import { benchRecovery } from './recovery.mjs';
import { benchRedisTopologies } from './redis-topologies.mjs';
import { benchRefreshStorm } from './refresh-storm.mjs';
import { withGoals, writeReport } from './report.mjs';
import { benchStateFile } from './state-file.mjs';
import { benchWebhook } from './webhook.mjs';

const smoke = process.argv.includes('--smoke');
const size = smoke
  ? {
      runs: 1,
      loginRuns: 1,
      dedupeRuns: 1,
      login: 40,
      webhook: 40,
      warmup: 10,
      cold: 1,
      install: false,
      dedupe: [1000, 20_000, 2000],
      repeat: 1,
      exchanges: 100,
      kept: 500,
      stateSizes: [100, 2000],
      stateChanges: 20,
      redisAmount: 200,
      redisKept: 100,
      payments: 40,
      paymentRuns: 1,
      healthExceptions: 500,
      healthCalls: 3,
      chainWindow: 500,
    }
  : {
      runs: 5,
      // The login apps differ by a few percent, less than one run's noise on a small machine: more,
      // shorter runs, all apps running side by side (see bench/login.mjs).
      loginRuns: 15,
      dedupeRuns: 9,
      login: 2500,
      webhook: 6000,
      warmup: 1000,
      cold: 60,
      install: true,
      // 1,200,000 timed notifications: more than the large store holds (see bench/dedupe.mjs).
      dedupe: [1000, 1_000_000, 1_200_000],
      repeat: 20,
      exchanges: 6000,
      kept: 100_000,
      stateSizes: [1000, 100_000],
      stateChanges: 200,
      redisAmount: 20_000,
      redisKept: 5000,
      payments: 4000,
      paymentRuns: 9,
      healthExceptions: 20_000,
      healthCalls: 30,
      chainWindow: 10_000,
    };

// `--only=3,9`: run these sections and keep the other sections of bench/results.json as they were.
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',').map(Number)) : undefined;
const runs = (section) => only === undefined || only.has(section);

const log = (line) => console.log(`bench: ${line}`);
const previous =
  only && !smoke ? JSON.parse(readFileSync(new URL('./results.json', import.meta.url), 'utf8')) : {};
const results = {
  ...previous,
  date: new Date().toISOString().slice(0, 10),
  runs: size.runs,
  smoke,
  machine: {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  },
};

if (runs(1)) {
  log('1. login callback');
  results.login = await benchLogin({ runs: size.loginRuns, amount: size.login, warmup: size.warmup });
  results.loginAmount = size.login; // beside the array: JSON keeps no property of an array
  results.loginCores = pinning() ?? null;
}
if (runs(2)) {
  log('2. cold start');
  results.coldStart = benchColdStart({ runs: Math.max(size.cold, size.runs) });
}
if (runs(3)) {
  log('3. webhook receiver');
  const redis = await benchRedis();
  try {
    results.webhook = await benchWebhook({
      runs: size.runs,
      amount: size.webhook,
      warmup: size.warmup,
      redisURL: redis?.url,
    });
  } finally {
    await redis?.stop();
  }
}
if (runs(4)) {
  log('4. refresh storm');
  results.refreshStorm = await benchRefreshStorm({ calls: 100 });
}
if (runs(5)) {
  log('5. footprint');
  results.footprint = benchFootprint({ withInstall: size.install });
}
if (runs(6)) {
  log('6. dedupe store at scale');
  const [small, large, amount] = size.dedupe;
  results.dedupe = benchDedupe({ runs: size.dedupeRuns, small, large, amount });
}
if (runs(7)) {
  log('7. request data of growing length');
  results.linear = await benchLinear({ runs: size.runs, repeat: size.repeat });
}
if (runs(8)) {
  log('8. emulator: authorization-code exchanges');
  results.emulator = await benchEmulator({ runs: size.runs, amount: size.exchanges });
}
if (runs(10)) {
  log('10. emulator state file: one change at 1,000 and 100,000 transactions');
  results.stateFile = await benchStateFile({
    runs: Math.min(size.runs, 3),
    sizes: size.stateSizes,
    changes: size.stateChanges,
  });
}
if (runs(9)) {
  log('9. recovery: unprocessed() and redrive()');
  results.recovery = await benchRecovery({ runs: Math.min(size.runs, 3), kept: size.kept });
}
if (runs(11)) {
  log('11. Redis stores: node-redis and ioredis, one server and a cluster');
  results.redisTopologies = await benchRedisTopologies({
    runs: Math.min(size.runs, 3),
    amount: size.redisAmount,
    kept: size.redisKept,
  });
}

if (runs(12)) {
  log('12. payments API: kudosPayments() against kudosWebhook() alone');
  // More runs than the other sections: the difference measured is smaller than this machine's drift.
  results.payments = await benchPayments({
    runs: size.paymentRuns,
    amount: size.payments,
    warmup: size.warmup,
  });
}

if (runs(13)) {
  log('13. health: status() with 20,000 exceptions');
  results.health = await benchHealth({ exceptions: size.healthExceptions, calls: size.healthCalls });
}

if (runs(14)) {
  log('14. reconcileChain(): 10,000 transfers in the window, then nothing new, then 10 new');
  results.chainScan = await benchChainScan({ window: size.chainWindow });
}

const final = withGoals(results);
if (smoke) {
  mkdirSync('test-results/bench-smoke', { recursive: true });
  writeReport(final, {
    json: 'test-results/bench-smoke/results.json',
    md: 'test-results/bench-smoke/BENCHMARKS.md',
  });
} else {
  writeReport(final, { json: 'bench/results.json', md: 'BENCHMARKS.md' });
}
for (const g of final.goals) log(`${g.met ? 'met ' : 'MISS'} ${g.goal}: ${g.value}`);
process.exit(0);
