// Where the example keeps its state. In memory for one process; with REDIS_URL, in Redis so that
// several instances share it (see the README's "Running several instances").
import { MemoryRefreshLock, MemoryTokenStore } from 'passport-kudos';
import { MemoryDedupeStore } from 'passport-kudos/webhook';
import { BoundedMemoryStore } from './session-store.js';

/**
 * @typedef {{ txHash: string, from: string, to: string, amount: string, denom: string, status: string, paid: boolean, receivedAt: string }} Payment
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
      // Idempotent by transaction: a later status (success after pending) replaces the row.
      const at = payments.findIndex((p) => p.txHash === payment.txHash);
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
 * The in-memory stores: one process only.
 * @returns {ExampleStores}
 */
export function memoryStores() {
  return {
    session: new BoundedMemoryStore(), // anonymous sessions: short-lived and bounded
    tokens: new MemoryTokenStore(),
    dedupe: new MemoryDedupeStore(),
    lock: new MemoryRefreshLock(),
    payments: memoryPayments(),
    close: async () => undefined,
  };
}

/**
 * @param {import('./config.js').ExampleConfig} config
 * @param {(line: string) => void} [log]
 * @returns {Promise<ExampleStores>}
 */
export async function createStores(config, log) {
  if (config.redisURL) {
    const { redisStores } = await import('./redis-stores.js');
    return redisStores(config.redisURL, log);
  }
  return memoryStores();
}
