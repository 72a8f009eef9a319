// Where the example keeps its state. For one process: the webhook's dedupe store in a SQLite file
// (what it could not process survives a restart), the rest in memory; with REDIS_URL (or
// REDIS_CLUSTER_NODES for a Redis Cluster), everything in
// Redis so that several instances share it (see the README's "Running several instances").
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryRefreshLock, MemoryTokenStore } from 'passport-kudos';
import { SqliteDedupeStore } from 'passport-kudos/sqlite';
import { BoundedMemoryStore } from './session-store.js';

/**
 * @typedef {{ txHash: string, from: string, to: string, amount: string, denom: string, received: string, status: string, paid: boolean, receivedAt: string }} Payment
 * @typedef {{ add(payment: Payment): Promise<void>, list(): Promise<Payment[]> }} PaymentLog
 * @typedef {{
 *   session: import('express-session').Store | undefined,
 *   tokens: import('passport-kudos').KudosTokenStore,
 *   dedupe: import('passport-kudos/webhook').KudosDedupeStore,
 *   lock: import('passport-kudos').KudosRefreshLock,
 *   payments: PaymentLog,
 *   close(): Promise<void>,
 * }} ExampleStores
 */

/** @returns {PaymentLog} */
function memoryPayments() {
  /** @type {Payment[]} */
  const payments = [];
  return {
    async add(payment) {
      // Idempotent by transaction: a later status (success after pending) replaces the row, but
      // nothing replaces a success (a late pending notification must not undo a payment).
      const at = payments.findIndex((p) => p.txHash === payment.txHash);
      if (at !== -1 && payments[at]?.status === 'success' && payment.status !== 'success') return;
      if (at !== -1) payments.splice(at, 1);
      payments.unshift(payment);
      payments.length = Math.min(payments.length, 200);
    },
    async list() {
      return [...payments];
    },
  };
}

/**
 * The stores of one process: the webhook's in a SQLite file under `dataDir`, the rest in memory.
 * @param {string} dataDir
 * @returns {ExampleStores}
 */
export function localStores(dataDir) {
  mkdirSync(dataDir, { recursive: true });
  const dedupe = new SqliteDedupeStore({ path: join(dataDir, 'kudos-webhook.db') });
  return {
    session: new BoundedMemoryStore(), // anonymous sessions: short-lived and bounded
    tokens: new MemoryTokenStore(),
    dedupe,
    lock: new MemoryRefreshLock(),
    payments: memoryPayments(),
    close: async () => dedupe.close(),
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
    return redisStores({ url: config.redisURL, clusterNodes: config.redisClusterNodes }, log);
  }
  return localStores(config.dataDir);
}
