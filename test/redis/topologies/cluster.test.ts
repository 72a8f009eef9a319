// See suite.ts: the three stores on node-redis and ioredis, here on cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_SHARDS, shardKeys } from '../../../src/redis/dedupe-keys.js';
import type { RedisPlace } from '../../helpers/redis-clients.js';
import { type RedisCluster, startRedisCluster } from '../../helpers/redis-cluster.js';
import { LIBRARIES, storeSuite } from './suite.js';

describe('a Redis Cluster of 3 masters and 3 replicas', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1 });
  }, 60_000);
  afterAll(() => cluster.close());
  const place = () => ({ topology: 'cluster', seeds: cluster.seeds }) as RedisPlace;
  for (const library of LIBRARIES) storeSuite(library, 'a cluster', place);

  it('spreads the shards of the kept index over all three masters', async () => {
    const masters = new Set<number>();
    for (let shard = 0; shard < KEPT_SHARDS; shard++)
      masters.add((await cluster.masterOf(shardKeys('kudos:webhook:', shard).index)).port);
    expect(masters.size).toBe(3);
  });
});
