import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { HAS_SQLITE } from './test/helpers/has-sqlite.js';

// Three suites, each runnable alone (`npm run test:unit`, `test:integration`, `test:e2e`); `npm test`
// runs them all with coverage. unit: in process and quick (no other program, no waiting on retries).
// integration: the emulator over real HTTP, Express apps, real redis-server processes, node:sqlite
// files, the emulator's command as its own process. e2e: Chromium, the example app and packed
// tarballs, the docs' code, the benchmarks' harness.
const EMULATOR_BROWSER = 'packages/kudos-emulator/test/browser/**/*.test.ts';
const INTEGRATION = [
  'test/redis/**/*.test.ts',
  'packages/kudos-payments/test/sqlite/**/*.test.ts',
  // The emulator's own package: its tests start it over real HTTP and as its own process.
  'packages/kudos-emulator/test/**/*.test.ts',
  'test/integration/**/*.test.ts',
  // The emulator's real sender, with its retries: seconds of waiting each.
  'packages/kudos-payments/test/webhook/payment-faults.test.ts',
  'packages/kudos-payments/test/webhook/overlapping-deliveries.test.ts',
  // 200,000 sign-ins started and called back, in process: seconds of encryption.
  'test/strategy/used-states-flood.test.ts',
  // 10,000 generated payloads posted over HTTP.
  'packages/kudos-payments/test/webhook/property.test.ts',
  // kudosPayments() with the emulator's real sender: attacks and faults.
  'packages/kudos-payments/test/webhook/payments.test.ts',
  'packages/kudos-payments/test/webhook/payments-real-service.test.ts',
  'packages/kudos-payments/test/webhook/payments-attack-six.test.ts',
  'packages/kudos-payments/test/webhook/payments-fulfil-retry.test.ts',
  'packages/kudos-payments/test/webhook/payments-two-instances.test.ts',
  'packages/kudos-payments/test/webhook/reconcile-chain.test.ts',
  'packages/kudos-payments/test/webhook/reconcile-chain-paging.test.ts',
  'packages/kudos-payments/test/webhook/payments-memo-copies.test.ts',
  'packages/kudos-payments/test/webhook/reconcile-chain-stores.test.ts',
  'packages/kudos-payments/test/webhook/payments-health.test.ts',
  'packages/kudos-payments/test/webhook/nothing-read-is-dropped.test.ts',
  'packages/kudos-payments/test/webhook/record-statuses.test.ts',
];
// Files whose every suite needs node:sqlite (22.13 and later): on an older Node they are left out of
// the run (said once below), not skipped one by one; the other files' SQLite suites are not defined.
const SQLITE_ONLY = ['packages/kudos-payments/test/sqlite/**/*.test.ts', 'test/e2e/readme-webhook.test.ts'];
const LEFT_OUT = HAS_SQLITE ? [] : SQLITE_ONLY;
const E2E = [
  'test/e2e/**/*.test.ts',
  // api-extractor, twice: seconds of compiling (it does not depend on the Node version).
  'test/contract/api-report.test.ts',
  EMULATOR_BROWSER,
  'test/docs/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/frameworks/**/*.test.ts',
];

// Said once (the config is read for each project: the first reading marks it in the environment),
// where a run's output is read; the skipped suites name the same reason.
if (!HAS_SQLITE && !process.env.KUDOS_TEST_SQLITE_SAID) {
  process.env.KUDOS_TEST_SQLITE_SAID = '1';
  console.log(
    `vitest: Node ${process.version} has no node:sqlite (22.13 and later have it): the SQLite suites are left out`,
  );
}

// node:sqlite prints an ExperimentalWarning in every process that loads it: each test worker, and each
// app a test starts. Said once here instead (the SQLite stores' docs say it too), so that a passing run
// prints nothing to look at. Node 20.11 and later take --disable-warning.
if (HAS_SQLITE && !process.env.KUDOS_TEST_WARNING_SAID) {
  process.env.KUDOS_TEST_WARNING_SAID = '1';
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --disable-warning=ExperimentalWarning`.trim();
  console.log("vitest: node:sqlite's ExperimentalWarning is not repeated by each test process");
}

// Everything the tests write under the temp directory (their folders, the apps and browsers they start,
// redis-server's files) goes into one folder of this run, removed when vitest exits: a run leaves
// nothing behind, even where a test is cut short. os.tmpdir() reads TMPDIR on each call, and every
// worker and child process inherits it.
if (!process.env.KUDOS_TEST_TMPDIR) {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-test-run-'));
  process.env.KUDOS_TEST_TMPDIR = dir;
  process.env.TMPDIR = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
}

/** A file of the workspace, absolute. */
function source(path: string): string {
  return fileURLToPath(new URL(`./${path}`, import.meta.url));
}

export default defineConfig({
  // The workspace's packages by name, from their sources, as tsconfig.json's paths say: one copy of
  // kudos-core in a run (every package's errors are the same classes).
  resolve: {
    alias: [
      { find: /^kudos-(core|payments)\/([a-z]+)$/, replacement: source('packages/kudos-$1/src/$2/index.ts') },
      { find: /^kudos-(core|payments|emulator)$/, replacement: source('packages/kudos-$1/src/index.ts') },
      { find: /^passport-kudos\/(redis|otel)$/, replacement: source('src/$1/index.ts') },
      { find: /^passport-kudos$/, replacement: source('src/index.ts') },
    ],
  },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // expect.poll() waits for what another process, a timer or a browser does: 1 s (vitest's default)
    // is too short beside other jobs on a 2-core machine; each project's bound stays below its tests'.
    expect: { poll: { timeout: 10_000 } },
    // Every file ends the processes it started, whatever cut a hook short (test/helpers/children.ts).
    setupFiles: ['test/setup/end-children.ts'],
    // Most files wait, not compute (servers, retries, leases, a browser, redis-server): four at a
    // time even on a 2-core machine. Measured on one: vitest 288 s with the default (one worker
    // there), 115 s with four, coverage included, every file passing.
    maxWorkers: 4,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
      // The command's entry point runs main() as it is imported: the emulator's test/cli/ runs it as the
      // command it is (a process, whose coverage V8 does not hand back); the code it calls is
      // measured in process by its test/cli-commands.test.ts.
      // On a Node without node:sqlite (before 22.13) the SQLite suites are skipped: their stores are
      // not measured there (CI's Nodes all have it, and measure them).
      exclude: [
        'packages/kudos-emulator/src/cli.ts',
        ...(HAS_SQLITE ? [] : ['packages/kudos-payments/src/sqlite/**']),
      ],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
      // Held in CI: `npm test` fails below them.
      thresholds: { lines: 90, branches: 85 },
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...INTEGRATION, ...E2E, ...LEFT_OUT],
          // Quick in-process files: worker threads start faster than child processes.
          pool: 'threads',
        },
      },
      // Real processes and servers: waits sized for a busy machine too (test/helpers/machine-wait.ts).
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [EMULATOR_BROWSER, ...LEFT_OUT],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          expect: { poll: { timeout: 30_000 } },
        },
      },
      // A browser, an app and an emulator per file: waits sized for a busy 2-core machine (a wait is
      // the machine's there, not the code's), so that npm test passes beside another job too.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          exclude: LEFT_OUT,
          testTimeout: 90_000,
          hookTimeout: 90_000,
          expect: { poll: { timeout: 30_000 } },
        },
      },
    ],
  },
});
