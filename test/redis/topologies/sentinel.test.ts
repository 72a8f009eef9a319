// See suite.ts: the three stores on node-redis and ioredis, here on sentinel.
import { afterAll, beforeAll, describe } from 'vitest';
import type { RedisPlace } from '../../helpers/redis-clients.js';
import { type RedisSentinelSetup, startRedisSentinel } from '../../helpers/redis-sentinel.js';
import { LIBRARIES, storeSuite } from './suite.js';

describe('a master and a replica under Redis Sentinel', () => {
  let setup: RedisSentinelSetup;
  beforeAll(async () => {
    setup = await startRedisSentinel();
  }, 60_000);
  afterAll(() => setup.close());
  const place = () => ({ topology: 'sentinel', sentinels: setup.sentinels, name: setup.name }) as RedisPlace;
  for (const library of LIBRARIES) storeSuite(library, 'Sentinel', place);
});
