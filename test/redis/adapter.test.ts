import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisDedupeStore } from '../../packages/kudos-payments/src/redis/index.js';
import { RedisRefreshLock, RedisTokenStore } from '../../src/redis/index.js';
import { sharedRedis } from '../helpers/redis-server.js';

// How the stores tell clients apart and drive each: by the client's own properties, never by its
// class (the libraries are optional peers the package does not import).
describe('the Redis client adapters', () => {
  it('refuses what it cannot drive with a TypeError that names every supported client', () => {
    for (const client of [undefined, null, 'redis://127.0.0.1', {}, { get: () => 1 }, { call: 5 }]) {
      for (const make of [
        () => new RedisDedupeStore(client as never),
        () => new RedisTokenStore(client as never),
        () => new RedisRefreshLock(client as never),
      ]) {
        expect(make).toThrow(TypeError);
        expect(make).toThrow(
          /node-redis client, cluster or sentinel \(createClient, createCluster, createSentinel\), an ioredis Redis or Cluster, or an adapter with send\(args, key\)/,
        );
      }
    }
  });

  it('drives ioredis through call(command, ...args), never through its own sendCommand', async () => {
    const calls: unknown[][] = [];
    const ioredisLike = {
      isCluster: false,
      call: async (...args: unknown[]) => {
        calls.push(args);
        return 'OK';
      },
      sendCommand: () => {
        throw new Error('command.setReplyContext is not a function');
      },
    };
    await new RedisTokenStore(ioredisLike, { prefix: 'p:' }).delete('alice');
    // First the store's start-up check (its eviction policy, one write), then the command.
    expect(calls).toEqual([
      ['INFO', 'memory'],
      ['SET', 'p:{kudos-check}', expect.stringMatching(/^\d+$/), 'PX', '60000'],
      ['DEL', 'p:alice'],
    ]);
  });

  it('routes a node-redis cluster command by its first key, and a sentinel one as a write', async () => {
    const seen: unknown[][] = [];
    const cluster = {
      getSlotMaster: () => undefined,
      sendCommand: async (...args: unknown[]) => {
        seen.push(args);
        return null;
      },
    };
    const sentinel = {
      getSentinelNode: () => undefined,
      sendCommand: async (...args: unknown[]) => {
        seen.push(args);
        return null;
      },
    };
    await new RedisTokenStore(cluster, { prefix: 'p:' }).get('alice');
    await new RedisTokenStore(sentinel, { prefix: 'p:' }).get('bobby');
    const probe = ['SET', 'p:{kudos-check}', expect.stringMatching(/^\d+$/), 'PX', '60000'];
    expect(seen).toEqual([
      [undefined, false, ['INFO', 'memory']], // the start-up check: unrouted, then a write
      ['p:{kudos-check}', false, probe],
      ['p:alice', false, ['GET', 'p:alice']],
      [false, ['INFO', 'memory']],
      [false, probe],
      [false, ['GET', 'p:bobby']],
    ]);
  });

  it('asks a node-redis cluster to read its slot map again after a failure, at most every 500 ms', async () => {
    let rediscovered = 0;
    const ready = { isReady: true };
    const cluster = {
      getSlotMaster: () => undefined,
      masters: [{ client: { isReady: false } }, { client: ready }],
      replicas: [],
      _slots: {
        rediscover: async (from: unknown) => {
          expect(from).toBe(ready); // from a node that answers
          rediscovered++;
        },
      },
      sendCommand: async () => {
        throw new Error('The client is offline');
      },
    };
    const store = new RedisTokenStore(cluster, { commandTimeoutMs: 1000 });
    for (let i = 0; i < 3; i++)
      await expect(store.get('alice')).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(rediscovered).toBe(1);
  });

  it('asks an ioredis Cluster to refresh its slots after a failure, at most every 500 ms', async () => {
    let refreshed = 0;
    const cluster = {
      isCluster: true,
      refreshSlotsCache: () => {
        refreshed++;
      },
      call: async () => {
        throw new Error('Too many Cluster redirections. Last error: Error: Connection is closed.');
      },
    };
    const store = new RedisTokenStore(cluster);
    for (let i = 0; i < 3; i++)
      await expect(store.get('alice')).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(refreshed).toBe(1);
  });

  describe('on a real redis-server, through an adapter of the test', () => {
    let redis: { url: string; close: () => Promise<void> };
    let client: ReturnType<typeof createClient>;
    beforeAll(async () => {
      redis = await sharedRedis();
      client = createClient({ url: redis.url });
      await client.connect();
    });
    afterAll(async () => {
      await client.quit();
      await redis.close();
    });

    it("gives each command its first key, and every key of one notification's scripts one hash tag", async () => {
      const sent: Array<{ args: string[]; key: string | undefined }> = [];
      const adapter = {
        send: (args: string[], key: string | undefined) => {
          sent.push({ args, key });
          return client.sendCommand(args);
        },
      };
      const prefix = `adapter:${randomUUID()}:`;
      const store = new RedisDedupeStore(adapter, { prefix });
      for (const hash of ['A', 'B', 'C', 'D']) {
        const key = `${hash.repeat(64)}:success`;
        const claim = { token: `t-${hash}`, trusted: true };
        expect(await store.claim(key, 10_000, claim)).toBe('claimed');
        await store.extend(key, 10_000, claim);
        await store.complete(key, 60_000, claim);
      }
      const scripts = sent.filter((s) => s.args[0] === 'EVALSHA' || s.args[0] === 'EVAL');
      expect(scripts.length).toBeGreaterThanOrEqual(12);
      for (const { args, key } of scripts) {
        const keys = args.slice(3, 3 + Number(args[2]));
        expect(key).toBe(keys[0]);
        const tags = new Set(keys.map((k) => /\{([^}]*)\}/.exec(k.slice(prefix.length))?.[1]));
        expect(tags.size).toBe(1);
        expect([...tags][0]).toMatch(/^\d+$/);
      }
    });
  });
});
