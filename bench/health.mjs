// 13. Health with many exceptions: status() of kudosPayments() when 20,000 payments that credit no order
// wait (strangers' payments), on each order store, against reading them the way status() read them
// before (every listed record parsed), measured in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { kudosPayments, MemoryDedupeStore, MemoryOrderStore } from 'kudos-payments';
import { RedisOrderStore } from 'kudos-payments/redis';
import { SqliteOrderStore } from 'kudos-payments/sqlite';
import { createClient } from 'redis';
import { WALLETS } from '../test/helpers/chain-answer.mjs';
import { benchRedisServer } from './lib/redis.mjs';
import { HAS_SQLITE } from './lib/sqlite.mjs';
import { summarize } from './lib/stats.mjs';

const THIRTY_DAYS_MS = 30 * 24 * 3600 * 1000;

/** An exception as the ledger writes it: a listed payment record that names no order. */
function exception(i) {
  const txHash = `E${i.toString(16).toUpperCase().padStart(63, '0')}`;
  const value = JSON.stringify({
    txHash,
    outcome: 'no_order',
    reference: null,
    received: '1',
    payer: null,
    source: 'webhook',
    decidedAt: Date.now(),
    told: true,
    acknowledged: false,
  });
  return { id: `payment:${txHash}`, version: null, value, ttlMs: THIRTY_DAYS_MS, listed: true };
}

async function fill(store, count) {
  for (let at = 0; at < count; at += 500) {
    const batch = [];
    for (let i = at; i < Math.min(count, at + 500); i++) batch.push(store.write([exception(i)]));
    await Promise.all(batch);
  }
}

/** Milliseconds of each of `times` calls of `call`, after one warm-up. */
async function timed(call, times) {
  await call();
  const ms = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await call();
    ms.push(performance.now() - started);
  }
  return summarize(ms);
}

/** The order stores to measure: memory, SQLite (when this Node has it), Redis (when redis-server is installed). */
async function stores() {
  const made = [{ name: 'MemoryOrderStore', store: new MemoryOrderStore(), close: async () => undefined }];
  if (HAS_SQLITE) {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-bench-health-'));
    const store = new SqliteOrderStore({ path: join(dir, 'orders.db'), synchronous: 'normal' });
    made.push({
      name: 'SqliteOrderStore',
      store,
      close: async () => {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  }
  const server = await benchRedisServer();
  if (server) {
    const client = createClient({ url: server.url });
    await client.connect();
    made.push({
      name: 'RedisOrderStore',
      store: new RedisOrderStore(client, { prefix: 'bench-health:' }),
      close: async () => {
        await client.close();
        await server.stop();
      },
    });
  }
  return made;
}

export async function benchHealth({ exceptions, calls }) {
  const rows = [];
  for (const { name, store, close } of await stores()) {
    try {
      await fill(store, exceptions);
      const payments = kudosPayments({
        secret: 'bench-health-secret-0123456789',
        authURL: 'http://127.0.0.1:9',
        baseURL: 'http://127.0.0.1:9/api',
        wallet: WALLETS.shop,
        shopUser: 'bobby',
        agent: 'shop-agent',
        store: new MemoryDedupeStore(),
        orders: store,
        onPaid: () => undefined,
      });
      const status = await payments.status();
      if (status.exceptions !== exceptions) throw new Error(`${name}: status() counted ${status.exceptions}`);
      const statusMs = await timed(() => payments.status(), calls);
      // The way status() read them before: every listed record, each parsed.
      const parseMs = await timed(async () => {
        for (const { value } of await store.listed(100_000)) JSON.parse(value);
      }, calls);
      rows.push({ store: name, exceptions, statusMs, parseMs });
    } finally {
      await close();
    }
  }
  return rows;
}
