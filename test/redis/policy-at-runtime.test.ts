import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type KudosNotification,
  type KudosRefusal,
  kudosPayments,
  kudosWebhook,
} from '../../packages/kudos-payments/src/index.js';
import { RedisDedupeStore, RedisOrderStore } from '../../packages/kudos-payments/src/redis/index.js';
import { RedisTokenStore } from '../../src/redis/index.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { listenLocal } from '../helpers/listen.js';
import { type ConnectedRedis, connectRedis, type RedisLibrary } from '../helpers/redis-clients.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

// An evicting maxmemory-policy that appears while the stores run (CONFIG SET, a failover to a replica
// configured otherwise) is caught at the next reading of the policy, against a real redis-server and
// the emulator's real sender: every command is refused (store_unusable) while it holds, health says
// so, onError is told once, and no payment is lost or run twice.

const SECRET = 'policy-at-runtime-secret-0123';

describe('a Redis whose policy turns to evicting while the stores run', () => {
  let redis: RedisServer;
  let admin: ReturnType<typeof createClient>;
  let kudos: KudosEmulator;
  beforeAll(async () => {
    redis = await startRedisServer(['--maxmemory', '64mb']);
    admin = createClient({ url: redis.url });
    await admin.connect();
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      paymentDelayMs: 5,
      webhook: { attempts: 3, retryDelayMs: 50, timeoutMs: 2000 },
    });
  });
  afterAll(async () => {
    await kudos?.close();
    await admin?.quit();
    await redis?.close();
  });

  for (const library of ['node-redis', 'ioredis'] as RedisLibrary[]) {
    it(`${library}: refused while it holds, told once, every payment processed exactly once once it is fixed`, async () => {
      const connected: ConnectedRedis = await connectRedis(library, {
        topology: 'standalone',
        url: redis.url,
      });
      const handled = new Map<string, number>();
      const errors: KudosRefusal[] = [];
      const store = new RedisDedupeStore(connected.client as never, {
        prefix: `runtime:${library}:`,
        policyCheckMs: 100,
      });
      const hook = kudosWebhook({
        secret: SECRET,
        store,
        onNotification: (n: KudosNotification) => {
          handled.set(n.key, (handled.get(n.key) ?? 0) + 1);
        },
        onError: (error) => {
          errors.push(error);
        },
      });
      const server = await listenLocal(http.createServer((req, res) => hook(req, res)));
      kudos.setWebhook('shop-agent', `${server.url}?token=${SECRET}`);
      const pay = () => kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' }).txHash;
      try {
        const before = [pay(), pay(), pay()];
        await kudos.idle();
        expect(before.every((hash) => handled.get(`${hash}:success`) === 1)).toBe(true);
        expect((await hook.status()).storeOk).toBe(true);

        await admin.configSet('maxmemory-policy', 'allkeys-lru');
        await new Promise((resolve) => setTimeout(resolve, 150)); // the next reading is due
        const during = [pay(), pay(), pay()];
        await kudos.idle();
        for (const hash of during) {
          const answers = kudos.deliveries.filter((d) => d.txHash === hash).map((d) => d.responseStatus);
          expect(answers.every((status) => status === 503)).toBe(true);
          expect(handled.get(`${hash}:success`)).toBeUndefined();
        }
        const health = await hook.status();
        expect(health.storeOk).toBe(false);
        expect(health.storeError).toContain(`Redis 127.0.0.1:${redis.port} has maxmemory-policy allkeys-lru`);
        const unusable = errors.filter((e) => e.message.includes('maxmemory-policy allkeys-lru'));
        expect(unusable).toHaveLength(1); // told once, not at each of the 9 refused deliveries
        // Another store of the app on the same server refuses too, once its reading is due.
        const tokens = new RedisTokenStore(connected.client as never, { prefix: `runtime-t:${library}:` });
        await expect(tokens.get('alice')).rejects.toMatchObject({ code: 'store_unusable' });

        // Fixed: the next reading lets everything through; the refused payments come again.
        await admin.configSet('maxmemory-policy', 'noeviction');
        await new Promise((resolve) => setTimeout(resolve, 150));
        for (const delivery of kudos.deliveries.filter((d) => during.includes(d.txHash) && d.attempt === 1)) {
          kudos.resend(delivery.id);
        }
        await kudos.idle();
        expect([...before, ...during].map((hash) => handled.get(`${hash}:success`))).toEqual(
          Array(6).fill(1),
        );
        expect((await hook.status()).storeOk).toBe(true);
      } finally {
        await admin.configSet('maxmemory-policy', 'noeviction');
        await server.close();
        await connected.close();
      }
    });
  }

  it('acceptEviction: true lets it through and warns once (KudosRedisWarning)', async () => {
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on('warning', listen);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      await admin.configSet('maxmemory-policy', 'volatile-lru');
      const store = new RedisTokenStore(client, {
        prefix: 'runtime-accept:',
        acceptEviction: true,
        policyCheckMs: 50,
      });
      await store.ready();
      for (let i = 0; i < 4; i++) {
        await store.get('alice');
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
      await new Promise((resolve) => setImmediate(resolve));
      const told = warnings.filter(
        (w) => w.name === 'KudosRedisWarning' && w.message.includes('acceptEviction: true'),
      );
      expect(told).toHaveLength(1);
      expect(told[0]?.message).toContain('maxmemory-policy volatile-lru, accepted');
    } finally {
      process.off('warning', listen);
      await admin.configSet('maxmemory-policy', 'noeviction');
      await client.quit();
    }
  });

  it('createOrder() on a refused store names the store’s reason in its message', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      await admin.configSet('maxmemory-policy', 'allkeys-lru');
      const payments = kudosPayments({
        secret: SECRET,
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
        wallet: kudos.walletOf('bobby'),
        shopUser: 'bobby',
        agent: 'shop-agent',
        orders: new RedisOrderStore(client, { prefix: 'runtime-orders:' }),
        onPaid: () => undefined,
      });
      const refused = await payments.createOrder({ amount: '1' }).catch((error: Error) => error);
      expect(refused).toMatchObject({ code: 'store_unavailable' });
      expect((refused as Error).message).toContain('the order store is unavailable (');
      expect((refused as Error).message).toContain('maxmemory-policy allkeys-lru');
    } finally {
      await admin.configSet('maxmemory-policy', 'noeviction');
      await client.quit();
    }
  });
});
