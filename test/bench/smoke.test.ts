import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HAS_SQLITE } from '../helpers/has-sqlite.js';

// Keeps the benchmark harness working: every section runs with tiny amounts. No time is asserted.
describe('npm run bench (smoke: tiny amounts)', () => {
  it('runs every section and writes a report with each figure', () => {
    const run = spawnSync(process.execPath, ['bench/run.mjs', '--smoke'], {
      encoding: 'utf8',
      // Sized for a busy machine: the smoke run takes about 20 s alone.
      timeout: 300_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const results = JSON.parse(readFileSync('test-results/bench-smoke/results.json', 'utf8'));
    expect(results.login.map((a: { name: string }) => a.name)).toEqual([
      'KudosStrategy',
      'passport-oauth2 subclass (anchor)',
      'node:http keep-alive handler (limit)',
      'KudosStrategy, every tracing channel subscribed',
      'KudosStrategy, passport-kudos/otel (SDK spans and metrics)',
    ]);
    for (const app of results.login) expect(app.rps.median).toBeGreaterThan(0);
    expect(results.coldStart).toHaveLength(7);
    expect(results.webhook.length).toBeGreaterThanOrEqual(4);
    expect(results.webhook.slice(-2).map((w: { name: string }) => w.name)).toEqual([
      'kudosWebhook, in-memory dedupe, every tracing channel subscribed',
      'kudosWebhook, in-memory dedupe, passport-kudos/otel',
    ]);
    // Sections 1 and 3 compare each with the same strategy and receiver without a subscriber.
    const watched = readFileSync('test-results/bench-smoke/BENCHMARKS.md', 'utf8').match(
      /^With a subscriber, against the same app without one in the same runs .*$/gm,
    );
    expect(watched).toHaveLength(2);
    expect(watched?.[0]).toMatch(
      /every tracing channel subscribed: [\d.]+x; passport-kudos\/otel \(SDK spans and metrics\): [\d.]+x\.$/,
    );
    expect(watched?.[1]).toMatch(
      /every tracing channel subscribed: [\d.]+x; passport-kudos\/otel: [\d.]+x\.$/,
    );
    expect(results.refreshStorm.createKudosClient.refreshRequests).toBe(1);
    expect(results.refreshStorm.naivePassportOauth2Refresh.refreshRequests).toBe(100);
    expect(results.footprint.passportKudos.packedBytes).toBeGreaterThan(0);
    expect(results.dedupe.sizes.map((d: { keys: number }) => d.keys)).toEqual([1000, 20_000]);
    expect(results.linear.length).toBeGreaterThanOrEqual(5);
    expect(results.emulator.kudos.rps.median).toBeGreaterThan(0);
    expect(results.emulator.oauth2MockServer.rps.median).toBeGreaterThan(0);
    expect(results.recovery).toMatchObject({ kept: 500 });
    expect(results.stateFile.rows.map((r: { transactions: number }) => r.transactions)).toEqual([100, 2000]);
    expect(results.recovery.redriveMs.median).toBeGreaterThan(0);
    const redis = results.redisTopologies.rows.map(
      (r: { library: string; topology: string }) => `${r.library} on ${r.topology}`,
    );
    expect(redis).toEqual([
      'node-redis on one server',
      'ioredis on one server',
      'node-redis on cluster, 3 masters',
      'ioredis on cluster, 3 masters',
    ]);
    // Two round trips per notification (a claim that keeps, a completion), whatever the client.
    for (const row of results.redisTopologies.rows) expect(row.tripsPerNotification).toBe(2);
    // The SQLite variants only where node:sqlite is (every Node of CI; not Node 20); Redis with redis-server.
    expect(results.payments.map((p: { mode: string; store: string }) => `${p.mode} ${p.store}`)).toEqual([
      'webhook memory',
      'payments memory',
      ...(HAS_SQLITE ? ['webhook sqlite', 'payments sqlite'] : []),
      'webhook redis', // redis-server is there, as for section 11
      'payments redis',
    ]);
    for (const row of results.payments) expect(row.rps.median).toBeGreaterThan(0);
    const report = readFileSync('test-results/bench-smoke/BENCHMARKS.md', 'utf8');
    for (const heading of [
      '## Goals',
      '## 1. Login callback',
      '## 2. Cold start',
      '## 3. Webhook receiver',
      '## 4. Refresh storm',
      '## 6. Dedupe store at scale',
      '## 7. Hostile request data of growing length',
      '## 8. The emulator as a test dependency',
      '## 9. Recovery: unprocessed() and redrive()',
      '## 10. The emulator state file at scale',
      '## 11. Redis stores: node-redis and ioredis, one server and a cluster',
      '## 12. Payments API',
    ]) {
      expect(report).toContain(heading);
    }
  }, 330_000); // the run's own bound (300 s) and the reading of its report
});
