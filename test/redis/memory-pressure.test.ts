import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type KudosWebhookHandler, kudosWebhook } from '../../packages/kudos-payments/src/index.js';
import { dedupeKeys, KEPT_SHARDS, shardKeys } from '../../packages/kudos-payments/src/redis/dedupe-keys.js';
import { RedisDedupeStore, RedisOrderStore } from '../../packages/kudos-payments/src/redis/index.js';
import { DEFAULT_TOKEN_TTL_MS, RedisRefreshLock, RedisTokenStore } from '../../src/redis/index.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { type Listening, listenLocal } from '../helpers/listen.js';
import { type ConnectedRedis, connectRedis, type RedisLibrary } from '../helpers/redis-clients.js';
import { keyTtls } from '../helpers/redis-keys.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

type Client = ReturnType<typeof createClient>;

// Redis under memory pressure, against real redis-server processes: an evicting policy is refused at
// the first call, a full `noeviction` Redis never leaves a completed payment to run again, and
// nothing the stores write lives without a TTL.

const SECRET = 'memory-pressure-shop-secret';
const STORES = [
  (client: unknown) => new RedisDedupeStore(client as never),
  (client: unknown) => new RedisOrderStore(client as never),
  (client: unknown) => new RedisTokenStore(client as never),
  (client: unknown) => new RedisRefreshLock(client as never),
];

describe('an evicting maxmemory-policy is refused at the first call, naming the policy and the server', () => {
  let redis: RedisServer;
  let admin: Client;
  beforeAll(async () => {
    redis = await startRedisServer(['--maxmemory', '64mb']);
    admin = createClient({ url: redis.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.quit();
    await redis.close();
  });

  for (const library of ['node-redis', 'ioredis'] as RedisLibrary[]) {
    it.each(['volatile-lru', 'allkeys-lru'])(
      `${library}, %s: every store refuses; acceptEviction lets it through`,
      async (policy) => {
        await admin.configSet('maxmemory-policy', policy);
        const connected: ConnectedRedis = await connectRedis(library, {
          topology: 'standalone',
          url: redis.url,
        });
        try {
          for (const make of STORES) {
            const store = make(connected.client);
            const refused = await store.ready().then(
              () => undefined,
              (error: unknown) => error as { code: string; message: string },
            );
            expect(refused?.code).toBe('store_unusable');
            expect(refused?.message).toContain(
              `Redis 127.0.0.1:${redis.port} has maxmemory-policy ${policy}`,
            );
            expect(refused?.message).toContain('Set maxmemory-policy noeviction');
            expect(refused?.message).toContain('acceptEviction: true');
          }
          // The first real call refuses too (the app need not call ready()).
          await expect(new RedisTokenStore(connected.client as never).get('alice')).rejects.toMatchObject({
            code: 'store_unusable',
          });
          await expect(
            new RedisTokenStore(connected.client as never, { acceptEviction: true }).ready(),
          ).resolves.toBeUndefined();
        } finally {
          await connected.close();
          await admin.configSet('maxmemory-policy', 'noeviction');
        }
      },
    );
  }

  it("with the emulator's real sender: 503 while the policy evicts (onError says why), processed once after it is fixed", async () => {
    await admin.configSet('maxmemory-policy', 'allkeys-lru');
    const client = createClient({ url: redis.url, disableOfflineQueue: true });
    await client.connect();
    const told: string[] = [];
    let handled = 0;
    const hook = kudosWebhook({
      secret: SECRET,
      store: new RedisDedupeStore(client, { prefix: `policy:${randomUUID()}:` }),
      onNotification: () => {
        handled++;
      },
      onError: (error) => told.push(`${error.code}: ${error.message}`),
    });
    const receiver = await listenLocal(http.createServer((req, res) => hook(req, res)));
    const kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: `${receiver.url}/?token=${SECRET}` }],
      paymentDelayMs: 1,
      webhook: { attempts: 2, retryDelayMs: 20 },
    });
    try {
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle();
      const sent = kudos.deliveries.filter((d) => d.txHash === tx.txHash && d.txStatus === 'success');
      expect(sent.map((d) => d.responseStatus)).toEqual([503, 503]);
      expect(handled).toBe(0);
      expect(told[0]).toContain('store_unavailable: dedupe store is unusable: RedisDedupeStore: Redis');
      expect(told[0]).toContain('maxmemory-policy allkeys-lru');
      await admin.configSet('maxmemory-policy', 'noeviction'); // the operator fixes it
      kudos.resend(sent[0]?.id as number);
      await kudos.idle();
      expect(kudos.deliveries.at(-1)?.responseStatus).toBe(200);
      expect(handled).toBe(1);
    } finally {
      await kudos.close();
      await receiver.close();
      await client.quit();
    }
  });
});

describe('a Redis the store cannot check or write', () => {
  it('INFO disabled (renamed away): warns once that the policy is unknown, and works', async () => {
    const redis = await startRedisServer(['--rename-command', 'INFO', '']);
    const client = createClient({ url: redis.url });
    await client.connect();
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on('warning', listener);
    try {
      const store = new RedisTokenStore(client);
      await store.set('alice', {
        accessToken: 'a',
        refreshToken: undefined,
        user: 'alice',
        expiresAt: 1,
        scope: undefined,
      });
      expect((await store.get('alice'))?.user).toBe('alice');
      await new Promise((resolve) => setImmediate(resolve));
      const ours = warnings.filter((w) => w.name === 'KudosRedisWarning');
      expect(ours.map((w) => w.message)).toEqual([
        `RedisTokenStore: could not read the eviction policy of Redis 127.0.0.1:${redis.port} (INFO memory); make sure its maxmemory-policy is noeviction, or an evicted key can run a payment twice (see docs/scaling.md)`,
      ]);
    } finally {
      process.off('warning', listener);
      await client.quit();
      await redis.close();
    }
  });

  it('a read-only replica: store_unusable at the first call, naming the server and READONLY', async () => {
    const primary = await startRedisServer();
    const replica = await startRedisServer(['--replicaof', '127.0.0.1', String(primary.port)]);
    const client = createClient({ url: replica.url });
    await client.connect();
    try {
      await expect(new RedisDedupeStore(client).ready()).rejects.toMatchObject({
        code: 'store_unusable',
        message: expect.stringMatching(
          new RegExp(`^RedisDedupeStore cannot write to Redis 127\\.0\\.0\\.1:${replica.port}: READONLY`),
        ),
      });
    } finally {
      await client.quit();
      await replica.close();
      await primary.close();
    }
  });
});

describe('a full noeviction Redis, then raised', () => {
  let redis: RedisServer;
  let admin: Client;
  let client: Client;
  let kudos: KudosEmulator | undefined;
  let receiver: Listening | undefined;
  beforeAll(async () => {
    redis = await startRedisServer(['--maxmemory-policy', 'noeviction', '--appendonly', 'no']);
    admin = createClient({ url: redis.url });
    client = createClient({ url: redis.url, disableOfflineQueue: true });
    await Promise.all([admin.connect(), client.connect()]);
  });
  afterEach(async () => {
    await kudos?.close();
    await receiver?.close();
    kudos = undefined;
    receiver = undefined;
  });
  afterAll(async () => {
    await Promise.all([admin.quit(), client.quit()]);
    await redis.close();
  });

  /** Fills Redis to its maxmemory: a limit just above what it uses, then filler values until refused. */
  async function fill(): Promise<number> {
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
    await admin.configSet('maxmemory', String(used + 200_000));
    let filled = 0;
    for (;;) {
      try {
        await admin.set(`filler:${filled}`, 'x'.repeat(10_000));
        filled++;
      } catch (error) {
        expect(String(error)).toContain('OOM');
        return filled;
      }
    }
  }

  it("20 payments whose handlers finish while Redis is full: each marked done at once, none runs again (the emulator's real sender)", async () => {
    const prefix = `full:${randomUUID()}:`;
    const handled = new Map<string, number>();
    let started = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const hook: KudosWebhookHandler = kudosWebhook({
      secret: SECRET,
      store: new RedisDedupeStore(client, { prefix }),
      handlerTimeoutMs: 20_000,
      onNotification: async (n) => {
        if (n.tx.status !== 'success') return;
        started++;
        await gate;
        handled.set(n.tx.txHash, (handled.get(n.tx.txHash) ?? 0) + 1);
      },
    });
    receiver = await listenLocal(http.createServer((req, res) => hook(req, res)));
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: `${receiver.url}/?token=${SECRET}` }],
      paymentDelayMs: 1,
      webhook: { attempts: 3, retryDelayMs: 50, timeoutMs: 30_000 },
    });
    const hashes = Array.from(
      { length: 20 },
      () => kudos?.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' }).txHash as string,
    );
    await expect.poll(() => started, { timeout: 10_000 }).toBe(20); // every claim made, every handler waiting
    expect(await fill()).toBeGreaterThan(0);
    await expect(admin.set('one-more', 'x'.repeat(10_000))).rejects.toThrow(/OOM/); // full
    open();
    await kudos.idle();
    // While Redis is still full: each completion was written (it frees the kept record first).
    for (const hash of hashes) {
      const { claim, kept } = dedupeKeys(prefix, `${hash}:success`);
      expect(await admin.get(claim), hash).toBe('done');
      expect(await admin.exists(kept), hash).toBe(0);
    }
    await admin.configSet('maxmemory', '0'); // memory comes back
    expect(await hook.redrive()).toMatchObject({ failed: 0, remaining: 0 });
    for (const d of kudos.deliveries.filter((d) => d.txStatus === 'success')) kudos.resend(d.id);
    await kudos.idle();
    expect(hashes.map((hash) => handled.get(hash))).toEqual(Array(20).fill(1));
    expect(await hook.unprocessed()).toEqual([]);
    await admin.flushAll();
  });

  it('status() says storeOk: false while the full Redis refuses writes (it still answers reads), true once raised', async () => {
    const prefix = `health-full:${randomUUID()}:`;
    const hook = kudosWebhook({
      secret: SECRET,
      store: new RedisDedupeStore(client, { prefix }),
      onNotification: () => undefined,
    });
    const orders = new RedisOrderStore(client, { prefix: `${prefix}orders:` });
    expect((await hook.status()).storeOk).toBe(true);
    await orders.ready();
    expect(await fill()).toBeGreaterThan(0);
    expect(await hook.unprocessed()).toEqual([]); // reads are answered
    const full = await hook.status();
    expect(full.storeOk).toBe(false);
    expect(full.storeError).toContain(`Redis 127.0.0.1:${redis.port} is full`);
    await expect(orders.health()).rejects.toMatchObject({ code: 'store_unavailable' });
    await admin.configSet('maxmemory', '0');
    expect((await hook.status()).storeOk).toBe(true);
    await expect(orders.health()).resolves.toBeUndefined();
    await admin.flushAll();
  });
});

describe('nothing the stores write lives without a TTL', () => {
  let redis: RedisServer;
  let client: Client;
  beforeAll(async () => {
    redis = await startRedisServer();
    client = createClient({ url: redis.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.quit();
    await redis.close();
  });

  const ttls = (prefix: string) => keyTtls(client, prefix);

  it('kept notifications never listed or redriven: every key has a TTL, and after it no index entry remains', async () => {
    const prefix = `ttl:${randomUUID()}:`;
    const hook = kudosWebhook({
      secret: SECRET,
      store: new RedisDedupeStore(client, { prefix }),
      dedupeTtlMs: 1500,
      onNotification: (n) => {
        if (Number.parseInt(n.tx.txHash.slice(0, 2), 16) % 2 === 0)
          throw new Error('the shop database is down');
      },
    });
    const receiver = await listenLocal(http.createServer((req, res) => hook(req, res)));
    const kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: `${receiver.url}/?token=${SECRET}` }],
      paymentDelayMs: 1,
      webhook: { attempts: 1 },
    });
    try {
      for (let i = 0; i < 40; i++) kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle();
      const during = await ttls(prefix);
      const indexes = Array.from({ length: KEPT_SHARDS }, (_, shard) => shardKeys(prefix, shard).index);
      expect(indexes.some((index) => during.has(index))).toBe(true); // some were kept
      expect([...during].filter(([, ttl]) => ttl < 0)).toEqual([]); // every key expires
      await new Promise((resolve) => setTimeout(resolve, 1800)); // past dedupeTtlMs
      const after = await ttls(prefix);
      expect([...after.keys()].filter((key) => !key.endsWith('{kudos-check}'))).toEqual([]);
      for (const index of indexes) expect(await client.zCard(index)).toBe(0);
    } finally {
      await kudos.close();
      await receiver.close();
    }
  });

  it(`token sets expire after ${DEFAULT_TOKEN_TTL_MS / 86_400_000} days without an update by default; ttlMs changes it, null keeps them`, async () => {
    const tokens = { accessToken: 'a', refreshToken: 'r', user: 'alice', expiresAt: 1, scope: ['profile'] };
    const prefix = `tokens:${randomUUID()}:`;
    await new RedisTokenStore(client, { prefix }).set('alice', tokens);
    const ttl = await client.pTTL(`${prefix}alice`);
    expect(ttl).toBeGreaterThan(DEFAULT_TOKEN_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULT_TOKEN_TTL_MS);
    await new RedisTokenStore(client, { prefix, ttlMs: 60_000 }).set('bobby', tokens);
    expect(await client.pTTL(`${prefix}bobby`)).toBeLessThanOrEqual(60_000);
    await new RedisTokenStore(client, { prefix, ttlMs: null }).set('carol', tokens);
    expect(await client.pTTL(`${prefix}carol`)).toBe(-1);
  });
});
