import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kudosWebhook } from '../../packages/kudos-payments/src/index.js';
import { dedupeKeys, shardKeys } from '../../packages/kudos-payments/src/redis/dedupe-keys.js';
import { RedisDedupeStore } from '../../packages/kudos-payments/src/redis/index.js';
import { KudosCookieStateStore, KudosError, type KudosTokenSet } from '../../src/index.js';
import { RedisRefreshLock, RedisTokenStore, RedisUsedStates } from '../../src/redis/index.js';
import { sharedRedis } from '../helpers/redis-server.js';

/** The claim context of a claimer named `token` (each claimer holds its own). */
const by = (token: string) => ({ token, trusted: true });

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
        Array.from({ length: 50 }, (_, i) => stores[i % 2]?.claim('tx:success', 10_000, by(`c${i}`))),
      );
      expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r === 'processing')).toHaveLength(49);
    });

    it('releases a claim for a redelivery, and keeps a completed one', async () => {
      const p = prefix();
      const one = new RedisDedupeStore(a, { prefix: p });
      const two = new RedisDedupeStore(b, { prefix: p });
      expect(await one.claim('k', 10_000, by('one'))).toBe('claimed');
      expect(await two.claim('k', 10_000, by('two'))).toBe('processing');
      await one.release('k', by('one'));
      expect(await two.claim('k', 10_000, by('two'))).toBe('claimed');
      await two.complete('k', 60_000, by('two'));
      expect(await one.claim('k', 10_000, by('one'))).toBe('done');
      expect(await a.get(dedupeKeys(p, 'k').claim)).toBe('done');
      expect(await a.pTTL(dedupeKeys(p, 'k').claim)).toBeGreaterThan(50_000);
    });

    it('expires a lease, and the old holder can no longer release the new claim', async () => {
      const p = prefix();
      const slow = new RedisDedupeStore(a, { prefix: p });
      const other = new RedisDedupeStore(b, { prefix: p });
      expect(await slow.claim('k', 50, by('slow'))).toBe('claimed');
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(await other.claim('k', 10_000, by('other'))).toBe('claimed');
      await slow.release('k', by('slow'));
      await slow.extend('k', 60_000, by('slow')); // no longer its lease: changes nothing
      expect(await slow.claim('k', 10_000, by('slow'))).toBe('processing');
      expect(await a.pTTL(dedupeKeys(p, 'k').claim)).toBeLessThanOrEqual(10_000);
    });

    it('renews the lease of its own claim only', async () => {
      const p = prefix();
      const holder = new RedisDedupeStore(a, { prefix: p });
      expect(await holder.claim('k', 1000, by('holder'))).toBe('claimed');
      await holder.extend('k', 60_000, by('holder'));
      expect(await a.pTTL(dedupeKeys(p, 'k').claim)).toBeGreaterThan(50_000);
      await new Promise((resolve) => setTimeout(resolve, 1200)); // past the first lease
      expect(await new RedisDedupeStore(b, { prefix: p }).claim('k', 1000, by('another'))).toBe('processing');
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
      for (const [key, value] of [
        ['broken-1', '{not json'],
        ['broken-2', '{"key":1}'],
      ] as const) {
        const { kept, index } = dedupeKeys(p, key);
        await a.set(kept, value);
        await a.zAdd(index, [{ score: 1, value: key }]);
      }
      expect((await store.kept(10)).map((k) => k.key)).toEqual([record.key]);
      expect(store.unreadable).toBe(2);
      for (const none of [0, 0.5, -1]) expect(await store.kept(none)).toEqual([]); // never "all"
      // Through the receiver: listed without them, each told to onError (kept_unreadable) with its key.
      const told: string[] = [];
      const hook = kudosWebhook({
        secret: 'corrupt-record-shop-secret',
        store,
        onNotification: () => undefined,
        onError: (error) => told.push(`${error.code}: ${error.message}`),
      });
      expect((await hook.unprocessed()).map((k) => k.key)).toEqual([record.key]);
      expect(told.sort()).toEqual([
        `kept_unreadable: kept record ${dedupeKeys(p, 'broken-1').kept} could not be read (not JSON); it is skipped`,
        `kept_unreadable: kept record ${dedupeKeys(p, 'broken-2').kept} could not be read (not a kept notification of RedisDedupeStore); it is skipped`,
      ]);
    });

    it('does not list a kept record whose key is done (a write a failover lost), and tidies its index entry', async () => {
      const p = prefix();
      const store = new RedisDedupeStore(a, { prefix: p });
      const records = ['A', 'B'].map((c) => {
        const hash = c.repeat(64);
        return {
          key: `${hash}:success`,
          txHash: hash,
          status: 'success' as const,
          attempts: 1,
          lastError: null,
          receivedAt: 5,
          body: { tx: { txHash: hash } },
          source: 'webhook' as const,
          trusted: true,
        };
      });
      for (const record of records) await store.keep(record, 60_000);
      // As a new master after a failover may hold it: the completion's 'done' without its DEL.
      const [doneOne, waiting] = records as [(typeof records)[0], (typeof records)[0]];
      await a.set(dedupeKeys(p, doneOne.key).claim, 'done');
      expect((await store.kept(10)).map((k) => k.key)).toEqual([waiting.key]);
      expect(await a.zScore(dedupeKeys(p, doneOne.key).index, doneOne.key)).toBeNull();
      expect(await a.zScore(dedupeKeys(p, waiting.key).index, waiting.key)).toBe(5);
    });

    it('tidies the index entry of a kept record that expired', async () => {
      const p = prefix();
      const store = new RedisDedupeStore(a, { prefix: p });
      const hash = 'F'.repeat(64);
      const key = `${hash}:success`;
      const body = { tx: { txHash: hash } };
      const base = { key, txHash: hash, status: 'success' as const, attempts: 1, lastError: null };
      await store.keep({ ...base, receivedAt: 1, body, source: 'webhook', trusted: true }, 40);
      const { index } = dedupeKeys(p, key);
      expect(await a.zCard(index)).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(await store.kept(10)).toEqual([]);
      expect(await a.zCard(index)).toBe(0);
    });

    it('runs its scripts again after SCRIPT FLUSH (NOSCRIPT: EVALSHA, then EVAL on the same node)', async () => {
      const p = prefix();
      const sent: string[] = [];
      const store = new RedisDedupeStore(
        {
          send: (args: string[]) => {
            sent.push(args[0] as string);
            return a.sendCommand(args);
          },
        },
        { prefix: p },
      );
      expect(await store.claim('k', 10_000, by('first'))).toBe('claimed');
      await a.sendCommand(['SCRIPT', 'FLUSH']);
      sent.length = 0;
      expect(await store.claim('k', 10_000, by('second'))).toBe('processing');
      expect(sent).toEqual(['EVALSHA', 'EVAL']);
      sent.length = 0;
      expect(await store.claim('k', 10_000, by('third'))).toBe('processing');
      expect(sent).toEqual(['EVALSHA']);
      expect(shardKeys(p, 0).index).toBe(`${p}{0}:index`);
    });

    it('checks its options, naming the one that is wrong', () => {
      expect(() => new RedisDedupeStore(a, { commandTimeoutMs: -1 })).toThrow('"commandTimeoutMs"');
      expect(() => new RedisDedupeStore(a, { prefix: 5 as never })).toThrow('"prefix"');
      expect(() => new RedisTokenStore(a, { ttlMs: 0 })).toThrow('"ttlMs"');
      expect(() => new RedisRefreshLock(a, { retryDelayMs: 'soon' as never })).toThrow('"retryDelayMs"');
      expect(() => new RedisDedupeStore({} as never)).toThrow('node-redis client, cluster or sentinel');
      expect(() => new RedisDedupeStore(a, { prefix: 'shop{}:' })).toThrow('empty hash tag');
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

  describe('RedisUsedStates', () => {
    it('one of 20 concurrent marks across two connections is the first; the state expires with its TTL', async () => {
      const p = prefix();
      const stores = [new RedisUsedStates(a, { prefix: p }), new RedisUsedStates(b, { prefix: p })];
      const marks = await Promise.all(
        Array.from({ length: 20 }, (_, i) => stores[i % 2]?.markUsed('the-state', 150)),
      );
      expect(marks.filter(Boolean)).toHaveLength(1);
      const ttl = await a.pTTL(`${p}the-state`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(150);
    });

    it('two instances with one KudosCookieStateStore secret: a state used at one is refused at the other', async () => {
      const p = prefix();
      const secret = 'redis-used-states-test-secret-0123456789';
      const [one, two] = [a, b].map(
        (client) =>
          new KudosCookieStateStore({ secret, usedStates: new RedisUsedStates(client, { prefix: p }) }),
      );
      const headers = new Map<string, string[]>();
      const res = {
        getHeader: (n: string) => headers.get(n),
        setHeader: (n: string, v: string[]) => headers.set(n, v),
      };
      let handle = '';
      one?.store({ headers: {}, res }, undefined, undefined, {}, (_err, h) => {
        handle = h as string;
      });
      const cookie = (headers.get('set-cookie')?.[0] ?? '').split(';')[0] as string;
      const verify = (store: KudosCookieStateStore | undefined) =>
        new Promise<unknown>((resolve) =>
          store?.verify({ headers: { cookie }, res }, handle, {}, (_err, ok) => resolve(ok)),
        );
      expect(await verify(one)).toBe(true);
      expect(await verify(two)).toBe(false);
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

  it('answers store_unavailable (503) when the client cannot reach Redis, without hanging', async () => {
    const closed = createClient({ url: redis.url, disableOfflineQueue: true });
    const store = new RedisDedupeStore(closed, { commandTimeoutMs: 500 });
    const error = await store.claim('k', 1000, by('k')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KudosError);
    expect(error).toMatchObject({ code: 'store_unavailable', status: 503 });
    const slow = new RedisTokenStore(
      { sendCommand: () => new Promise(() => undefined) },
      { commandTimeoutMs: 50 },
    );
    await expect(slow.get('x')).rejects.toMatchObject({
      code: 'store_unavailable',
      message: expect.stringContaining('no answer within 50 ms'),
    });
    expect(() => new RedisTokenStore({} as never)).toThrow('requires a connected Redis client');
  });
});
