import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KudosError, type KudosTokenSet } from '../../src/index.js';
import { RedisDedupeStore, RedisRefreshLock, RedisTokenStore } from '../../src/redis/index.js';
import { sharedRedis } from '../helpers/redis-server.js';

type Client = ReturnType<typeof createClient>;

describe('passport-kudos/redis stores against a real redis-server', () => {
  let redis: { url: string; close: () => Promise<void> };
  let a: Client;
  let b: Client;
  const prefix = () => `test:${randomUUID()}:`;

  beforeAll(async () => {
    redis = await sharedRedis();
    a = createClient({ url: redis.url, disableOfflineQueue: true });
    b = createClient({ url: redis.url, disableOfflineQueue: true });
    await Promise.all([a.connect(), b.connect()]);
  });
  afterAll(async () => {
    await Promise.all([a.quit(), b.quit()]);
    await redis.close();
  });

  describe('RedisDedupeStore', () => {
    it('gives one of 50 concurrent claims across two connections', async () => {
      const p = prefix();
      const stores = [new RedisDedupeStore(a, { prefix: p }), new RedisDedupeStore(b, { prefix: p })];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => stores[i % 2]?.claim('tx:success', 10_000)),
      );
      expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r === 'processing')).toHaveLength(49);
    });

    it('releases a claim for a redelivery, and keeps a completed one', async () => {
      const p = prefix();
      const one = new RedisDedupeStore(a, { prefix: p });
      const two = new RedisDedupeStore(b, { prefix: p });
      expect(await one.claim('k', 10_000)).toBe('claimed');
      expect(await two.claim('k', 10_000)).toBe('processing');
      await one.release('k');
      expect(await two.claim('k', 10_000)).toBe('claimed');
      await two.complete('k', 60_000);
      expect(await one.claim('k', 10_000)).toBe('done');
      expect(await a.get(`${p}k`)).toBe('done');
      expect(await a.pTTL(`${p}k`)).toBeGreaterThan(50_000);
    });

    it('expires a lease, and the old holder can no longer release the new claim', async () => {
      const p = prefix();
      const slow = new RedisDedupeStore(a, { prefix: p });
      const other = new RedisDedupeStore(b, { prefix: p });
      expect(await slow.claim('k', 50)).toBe('claimed');
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(await other.claim('k', 10_000)).toBe('claimed');
      await slow.release('k');
      await slow.extend('k', 60_000); // no longer its lease: changes nothing
      expect(await slow.claim('k', 10_000)).toBe('processing');
      expect(await a.pTTL(`${p}k`)).toBeLessThanOrEqual(10_000);
    });

    it('renews the lease of its own claim only', async () => {
      const p = prefix();
      const holder = new RedisDedupeStore(a, { prefix: p });
      expect(await holder.claim('k', 100)).toBe('claimed');
      await holder.extend('k', 60_000);
      expect(await a.pTTL(`${p}k`)).toBeGreaterThan(50_000);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await new RedisDedupeStore(b, { prefix: p }).claim('k', 1000)).toBe('processing');
    });
    it('leaves out a kept record that is not its own, and lists the others (a corrupt value is not fatal)', async () => {
      const p = prefix();
      const store = new RedisDedupeStore(a, { prefix: p });
      const hash = 'E'.repeat(64);
      const record = {
        key: `${hash}:success`,
        txHash: hash,
        status: 'success' as const,
        attempts: 1,
        lastError: 'handler_failed: boom',
        receivedAt: 2,
        body: { tx: { txHash: hash } },
        source: 'webhook' as const,
        trusted: true,
      };
      await store.keep(record, 60_000);
      // A value edited by hand, and one that is JSON of another shape, indexed like kept records.
      await a.set(`${p}kept:broken-1`, '{not json');
      await a.set(`${p}kept:broken-2`, '{"key":1}');
      await a.zAdd(`${p}kept`, [
        { score: 1, value: 'broken-1' },
        { score: 1, value: 'broken-2' },
      ]);
      expect((await store.kept(10)).map((k) => k.key)).toEqual([record.key]);
      expect(store.unreadable).toBe(2);
    });

    it('checks its options, naming the one that is wrong', () => {
      expect(() => new RedisDedupeStore(a, { commandTimeoutMs: -1 })).toThrow('"commandTimeoutMs"');
      expect(() => new RedisDedupeStore(a, { prefix: 5 as never })).toThrow('"prefix"');
      expect(() => new RedisTokenStore(a, { ttlMs: 0 })).toThrow('"ttlMs"');
      expect(() => new RedisRefreshLock(a, { retryDelayMs: 'soon' as never })).toThrow('"retryDelayMs"');
      expect(() => new RedisDedupeStore({} as never)).toThrow('sendCommand');
    });
  });

  describe('RedisRefreshLock', () => {
    it('excludes holders across connections', async () => {
      const p = prefix();
      const locks = [new RedisRefreshLock(a, { prefix: p }), new RedisRefreshLock(b, { prefix: p })];
      let inside = 0;
      let most = 0;
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          locks[i % 2]?.withLock('user', 5000, async () => {
            inside++;
            most = Math.max(most, inside);
            await new Promise((resolve) => setTimeout(resolve, 5));
            inside--;
          }),
        ),
      );
      expect(most).toBe(1);
    });

    it('does not block forever behind a crashed holder: the lock expires after its TTL', async () => {
      const p = prefix();
      await a.set(`${p}user`, 'crashed-holder', { PX: 150 });
      const lock = new RedisRefreshLock(b, { prefix: p });
      const started = Date.now();
      expect(await lock.withLock('user', 150, async () => 'got it')).toBe('got it');
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    });

    it('gives up with lock_timeout after twice the TTL', async () => {
      const p = prefix();
      await a.set(`${p}user`, 'someone', { PX: 60_000 });
      const lock = new RedisRefreshLock(b, { prefix: p });
      await expect(lock.withLock('user', 50, async () => 'never')).rejects.toMatchObject({
        code: 'lock_timeout',
        status: 503,
      });
    });
  });

  describe('RedisTokenStore', () => {
    it('stores and reads a token set; ignores what is not one', async () => {
      const p = prefix();
      const store = new RedisTokenStore(a, { prefix: p });
      const set: KudosTokenSet = {
        accessToken: 'at',
        refreshToken: 'rt',
        user: 'alice',
        expiresAt: 123,
        scope: ['profile'],
      };
      await store.set('alice', set);
      expect(await new RedisTokenStore(b, { prefix: p }).get('alice')).toEqual(set);
      expect(await store.get('nobody')).toBeUndefined();
      await a.set(`${p}broken`, '{"accessToken":1}');
      expect(await store.get('broken')).toBeUndefined();
      await store.delete('alice');
      expect(await store.get('alice')).toBeUndefined();
    });
  });

  it('answers redis_unavailable (503) when the client cannot reach Redis, without hanging', async () => {
    const closed = createClient({ url: redis.url, disableOfflineQueue: true });
    const store = new RedisDedupeStore(closed, { commandTimeoutMs: 500 });
    const error = await store.claim('k', 1000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KudosError);
    expect(error).toMatchObject({ code: 'redis_unavailable', status: 503 });
    const slow = new RedisTokenStore(
      { sendCommand: () => new Promise(() => undefined) },
      { commandTimeoutMs: 50 },
    );
    await expect(slow.get('x')).rejects.toMatchObject({
      code: 'redis_unavailable',
      message: expect.stringContaining('no answer within 50 ms'),
    });
    expect(() => new RedisTokenStore({} as never)).toThrow('requires a connected Redis client');
  });
});
