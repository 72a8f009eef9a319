// See suite.ts: the three stores on node-redis and ioredis, here on cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_SHARDS, shardKeys } from '../../../packages/kudos-payments/src/redis/dedupe-keys.js';
import { RedisDedupeStore } from '../../../packages/kudos-payments/src/redis/index.js';
import { connectRedis, type RedisPlace } from '../../helpers/redis-clients.js';
import { cli, type RedisCluster, startRedisCluster } from '../../helpers/redis-cluster.js';
import { LIBRARIES, storeSuite } from './suite.js';

describe('a Redis Cluster of 3 masters and 3 replicas', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1 });
  }, 60_000);
  afterAll(() => cluster.close());
  const place = () => ({ topology: 'cluster', seeds: cluster.seeds }) as RedisPlace;
  for (const library of LIBRARIES) storeSuite(library, 'a cluster', place);

  it.each(LIBRARIES)(
    '%s: checks the eviction policy on every master, naming the one that evicts',
    async (library) => {
      // The master of a shard other than the first: a check of one node (the first) would miss it.
      const master = await cluster.masterOf(shardKeys('kudos:webhook:', 5).index);
      await cli(master.port, 'CONFIG', 'SET', 'maxmemory-policy', 'volatile-lru');
      const connected = await connectRedis(library, place());
      try {
        await expect(new RedisDedupeStore(connected.client as never).ready()).rejects.toMatchObject({
          code: 'store_unusable',
          message: expect.stringContaining(
            `Redis 127.0.0.1:${master.port} has maxmemory-policy volatile-lru`,
          ),
        });
      } finally {
        await cli(master.port, 'CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
      }
      try {
        await expect(new RedisDedupeStore(connected.client as never).ready()).resolves.toBeUndefined();
      } finally {
        await connected.close();
      }
    },
  );

  it('spreads the shards of the kept index over all three masters', async () => {
    const masters = new Set<number>();
    for (let shard = 0; shard < KEPT_SHARDS; shard++)
      masters.add((await cluster.masterOf(shardKeys('kudos:webhook:', shard).index)).port);
    expect(masters.size).toBe(3);
  });
});
