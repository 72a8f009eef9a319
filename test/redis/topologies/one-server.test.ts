// See suite.ts: the three stores on node-redis and ioredis, here on one server.
import { afterAll, beforeAll, describe } from 'vitest';
import type { RedisPlace } from '../../helpers/redis-clients.js';
import { sharedRedis } from '../../helpers/redis-server.js';
import { LIBRARIES, storeSuite } from './suite.js';

describe('one redis-server', () => {
  let server: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(() => server.close());
  const standalone = () => ({ topology: 'standalone', url: server.url }) as RedisPlace;
  for (const library of LIBRARIES) storeSuite(library, 'one server', standalone);
});
