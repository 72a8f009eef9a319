/// <reference types="node" preserve="true" />
/**
 * kudos-core/redis: the Redis client code the Kudos packages share, written once: which client an app
 * handed over (node-redis or ioredis: one server, Sentinel, Cluster), the commands every store sends
 * through it, and the server's checks. passport-kudos/redis (the token store, the refresh lock, used
 * states) and kudos-payments/redis (the dedupe and order stores) are built on it. The clients are
 * the app's: nothing here imports one.
 *
 * @packageDocumentation
 */
export * from './adapter.js';
export * from './client-kind.js';
export * from './command.js';
export * from './ioredis.js';
export * from './node-redis.js';
export * from './server-check.js';
