/// <reference types="node" preserve="true" />
// The published types use Node's: this makes them load under a TypeScript that includes no @types
// by default (TypeScript 7), for whichever entry point is imported.
/**
 * passport-kudos/sqlite: durable stores in one SQLite file, on Node's built-in `node:sqlite`
 * (Node.js 22.13+; no dependency): what a single instance should use, so that a notification the
 * handler could not process, and the orders of `kudosPayments()`, survive a restart. Several
 * instances: Redis.
 *
 * @example
 * kudosWebhook({ store: new SqliteDedupeStore({ path: 'data/kudos.db' }), ... });
 * kudosPayments({ store: new SqliteDedupeStore({ path }), orders: new SqliteOrderStore({ path }), ... });
 *
 * @packageDocumentation
 */
export { type SqliteStoreOptions, sqliteAvailable } from './database.js';
export { SqliteDedupeStore, type SqliteDedupeStoreOptions } from './dedupe-store.js';
export { SqliteOrderStore, type SqliteOrderStoreOptions } from './order-store.js';
