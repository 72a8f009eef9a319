/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * passport-kudos/redis: the sign-in's stores for several app instances sharing one Redis: token
 * sets, the refresh lock and the used sign-in states. Optional: needs a Redis client from the app,
 * node-redis (client, cluster or sentinel) or ioredis (Redis or Cluster), both optional peer
 * dependencies; the package's root entry point never loads this. The payments' Redis stores are
 * kudos-payments/redis.
 *
 * @example
 * ```ts
 * import { createKudosClient, KudosStrategy } from 'passport-kudos';
 * import { RedisRefreshLock, RedisTokenStore } from 'passport-kudos/redis';
 * import { createClient } from 'redis';
 * declare const strategy: KudosStrategy; // your passport.use() strategy
 * const redis = createClient({ url: 'redis://127.0.0.1:6379', disableOfflineQueue: true });
 * await redis.connect();
 * const kudos = createKudosClient({ tokens: new RedisTokenStore(redis), lock: new RedisRefreshLock(redis), strategy });
 * ```
 *
 * @packageDocumentation
 */
export type { KudosRedisAdapter, KudosRedisClient, KudosRedisOptions } from 'kudos-core/redis';
export { RedisRefreshLock, type RedisRefreshLockOptions } from './refresh-lock.js';
export { DEFAULT_TOKEN_TTL_MS, RedisTokenStore, type RedisTokenStoreOptions } from './token-store.js';
export { RedisUsedStates } from './used-states.js';
