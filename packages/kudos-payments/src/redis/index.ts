/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * kudos-payments/redis: the dedupe and order stores that let several shop instances share one
 * Redis. Optional: needs a Redis client from the app, node-redis (client, cluster or sentinel) or
 * ioredis (Redis or Cluster), both optional peer dependencies; the package's root entry point never
 * loads this.
 *
 * @example
 * ```ts
 * import { kudosWebhook } from 'kudos-payments';
 * import { RedisDedupeStore } from 'kudos-payments/redis';
 * import { createClient } from 'redis';
 * const redis = createClient({ url: 'redis://127.0.0.1:6379', disableOfflineQueue: true });
 * await redis.connect();
 * const hook = kudosWebhook({ secret: 'at-least-16-characters', store: new RedisDedupeStore(redis), onNotification: () => undefined });
 * ```
 *
 * @packageDocumentation
 */
export type { KudosRedisAdapter, KudosRedisClient, KudosRedisOptions } from 'kudos-core/redis';
export { RedisDedupeStore } from './dedupe-store.js';
export { RedisOrderStore, type RedisOrderStoreOptions } from './order-store.js';
