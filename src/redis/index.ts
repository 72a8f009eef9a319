/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * passport-kudos/redis: stores that let several app instances share webhook dedupe, the refresh
 * lock and token sets through Redis. Optional: needs a Redis client from the app, node-redis
 * (client, cluster or sentinel) or ioredis (Redis or Cluster), both optional peer dependencies;
 * the package's root entry point never loads this.
 *
 * @example
 * ```ts
 * import { RedisDedupeStore } from 'passport-kudos/redis';
 * import { kudosWebhook } from 'passport-kudos/webhook';
 * import { createClient } from 'redis';
 * const redis = createClient({ url: 'redis://127.0.0.1:6379', disableOfflineQueue: true });
 * await redis.connect();
 * const hook = kudosWebhook({ secret: 'at-least-16-characters', store: new RedisDedupeStore(redis), onNotification: () => undefined });
 * // and createKudosClient({ tokens: new RedisTokenStore(redis), lock: new RedisRefreshLock(redis), strategy })
 * ```
 *
 * @packageDocumentation
 */
export type { KudosRedisAdapter, KudosRedisClient } from './adapter.js';
export type { KudosRedisOptions } from './command.js';
export { RedisDedupeStore } from './dedupe-store.js';
export { RedisOrderStore, type RedisOrderStoreOptions } from './order-store.js';
export { RedisRefreshLock, type RedisRefreshLockOptions } from './refresh-lock.js';
export { DEFAULT_TOKEN_TTL_MS, RedisTokenStore, type RedisTokenStoreOptions } from './token-store.js';
export { RedisUsedStates } from './used-states.js';
