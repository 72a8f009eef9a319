// Where the example keeps its state. For one process: the webhook's dedupe store in a SQLite file
// (what it could not process survives a restart), the rest in memory; with REDIS_URL (or
// REDIS_CLUSTER_NODES for a Redis Cluster), everything in
// Redis so that several instances share it (see the README's "Running several instances").
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryDedupeStore, MemoryOrderStore } from 'kudos-payments';
import { SqliteDedupeStore, sqliteAvailable } from 'kudos-payments/sqlite';
import { MemoryRefreshLock, MemoryTokenStore } from 'passport-kudos';
import { BoundedMemoryStore } from './session-store.js';

/**
 * @typedef {{ txHash: string, from: string, order: string | null, received: string, outcome: string, paid: boolean, receivedAt: string }} Payment
 * @typedef {{ add(payment: Payment): Promise<void>, list(): Promise<Payment[]> }} PaymentLog
 * @typedef {{ reference: string, url: string }} OpenTip
 * @typedef {{ get(key: string): Promise<OpenTip | undefined>, set(key: string, tip: OpenTip, ttlMs: number): Promise<void> }} OpenTips
 * @typedef {{
 *   session: import('express-session').Store | undefined,
 *   tokens: import('passport-kudos').KudosTokenStore,
 *   dedupe: import('kudos-payments').KudosDedupeStore,
 *   orders: import('kudos-payments').KudosOrderStore,
 *   lock: import('passport-kudos').KudosRefreshLock,
 *   payments: PaymentLog,
 *   openTips: OpenTips,
 *   close(): Promise<void>,
 * }} ExampleStores
 */

/** Most users whose open tip is remembered in memory; the oldest is forgotten first. */
const MAX_OPEN_TIPS = 10_000;

/**
 * Each user's open tip order (per kind: link or popup), so that following the link again, from any
 * session, uses it instead of making another order.
 * @returns {OpenTips}
 */
export function memoryOpenTips(now = Date.now) {
  /** @type {Map<string, { tip: OpenTip, until: number }>} */
  const tips = new Map();
  return {
    async get(key) {
      const kept = tips.get(key);
      return kept && kept.until > now() ? kept.tip : undefined;
    },
    async set(key, tip, ttlMs) {
      tips.delete(key);
      tips.set(key, { tip, until: now() + ttlMs });
      for (const oldest of tips.keys()) {
        if (tips.size <= MAX_OPEN_TIPS) break;
        tips.delete(oldest);
      }
    },
  };
}

/** @returns {PaymentLog} */
function memoryPayments() {
  /** @type {Payment[]} */
  const payments = [];
  return {
    async add(payment) {
      // Idempotent by transaction: kudosPayments() decides each once, so the first row stands.
      if (payments.some((p) => p.txHash === payment.txHash)) return;
      payments.unshift(payment);
      payments.length = Math.min(payments.length, 200);
    },
    async list() {
      return [...payments];
    },
  };
}

/**
 * The stores of one process: the payments' (notifications and orders) in one SQLite file under
 * `dataDir`, the rest in memory. On a Node without `node:sqlite`, the payments' in memory too,
 * said in one line.
 * @param {string} dataDir
 * @param {(line: string) => void} [log]
 * @returns {ExampleStores}
 */
export function localStores(dataDir, log = () => undefined) {
  const common = {
    session: new BoundedMemoryStore(), // bounded: at most so many sessions, the oldest anonymous ones first
    tokens: new MemoryTokenStore(),
    lock: new MemoryRefreshLock(),
    payments: memoryPayments(),
    openTips: memoryOpenTips(),
  };
  if (!sqliteAvailable()) {
    log(
      `Node ${process.version} has no node:sqlite (22.13 and later have it): payments are kept in memory, and what was not processed is lost on a restart`,
    );
    return {
      ...common,
      dedupe: new MemoryDedupeStore(),
      orders: new MemoryOrderStore(),
      close: async () => {},
    };
  }
  mkdirSync(dataDir, { recursive: true });
  const dedupe = new SqliteDedupeStore({ path: join(dataDir, 'kudos-payments.db') });
  const orders = dedupe.orderStore(); // the same file
  return {
    ...common,
    dedupe,
    orders,
    close: async () => {
      orders.close();
      dedupe.close();
    },
  };
}

/**
 * @param {import('./config.js').ExampleConfig} config
 * @param {(line: string) => void} [log]
 * @returns {Promise<ExampleStores>}
 */
export async function createStores(config, log) {
  if (config.redisURL || config.redisClusterNodes) {
    const { redisStores } = await import('./redis-stores.js');
    return redisStores(
      { url: config.redisURL, clusterNodes: config.redisClusterNodes, sessionsURL: config.redisSessionsURL },
      log,
    );
  }
  return localStores(config.dataDir, log);
}
