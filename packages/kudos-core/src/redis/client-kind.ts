import { isObjectLike } from '../base/guards.js';
import type { KudosRedisAdapter } from './adapter.js';
import { ioredisAdapter } from './ioredis.js';
import { nodeRedisAdapter, nodeRedisClusterAdapter, nodeRedisSentinelAdapter } from './node-redis.js';

/** The clients the stores can drive, as the TypeError for any other names them. */
const SUPPORTED =
  'a node-redis client, cluster or sentinel (createClient, createCluster, createSentinel), an ioredis Redis or Cluster, or an adapter with send(args, key)';

const isFunction = (value: unknown): boolean => typeof value === 'function';

/**
 * The adapter for `client`, chosen by what it is. ioredis is told apart first: it has a
 * `sendCommand` too, but one that takes its own Command objects, not an argument list.
 */
export function redisAdapter(client: unknown, who: string): KudosRedisAdapter {
  if (isObjectLike(client)) {
    const c = client as Record<string, unknown>;
    if (isFunction(c.call) && typeof c.isCluster === 'boolean') return ioredisAdapter(c);
    if (isFunction(c.sendCommand) && isFunction(c.getSlotMaster)) return nodeRedisClusterAdapter(c);
    if (isFunction(c.sendCommand) && isFunction(c.getSentinelNode)) return nodeRedisSentinelAdapter(c);
    if (isFunction(c.sendCommand)) return nodeRedisAdapter(c);
    if (isFunction(c.send)) return c as unknown as KudosRedisAdapter;
  }
  throw new TypeError(`${who} requires a connected Redis client: ${SUPPORTED}`);
}
