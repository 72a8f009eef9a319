/// <reference types="node" preserve="true" />
// The published types use Node's: this makes them load under a TypeScript that includes no @types
// by default (TypeScript 7), for whichever entry point is imported.
/**
 * kudos-payments/sqlite: durable stores in one SQLite file, on Node's built-in `node:sqlite`
 * (Node.js 22.13+; no dependency): what a single instance should use, so that a notification the
 * handler could not process, and the orders of `kudosPayments()`, survive a restart. Several
 * instances: Redis.
 *
 * @example
 * ```ts
 * import { SqliteDedupeStore } from 'kudos-payments/sqlite';
 * import { kudosWebhook } from 'kudos-payments';
 * const store = new SqliteDedupeStore({ path: 'data/kudos.db' });
 * const hook = kudosWebhook({ secret: 'at-least-16-characters', store, onNotification: () => undefined });
 * // kudosPayments(): store, and orders: store.orderStore(), in the same file
 * ```
 *
 * @packageDocumentation
 */
export { type SqliteStoreOptions, sqliteAvailable } from './database.js';
export { SqliteDedupeStore, type SqliteDedupeStoreOptions } from './dedupe-store.js';
export { SqliteOrderStore, type SqliteOrderStoreOptions } from './order-store.js';
