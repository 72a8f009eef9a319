import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type KudosWebhookHandler, kudosWebhook } from '../../packages/kudos-payments/src/index.js';
import { dedupeKeys } from '../../packages/kudos-payments/src/redis/dedupe-keys.js';
import { RedisDedupeStore } from '../../packages/kudos-payments/src/redis/index.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { type Listening, listenLocal } from '../helpers/listen.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

type Client = ReturnType<typeof createClient>;

// The payment faults that involve Redis, with a real redis-server and the emulator's real sender.
describe('payments on RedisDedupeStore survive a slow Redis and a failing handler', () => {
  let redis: RedisServer;
  let client: Client;
  let admin: Client;
  let kudos: KudosEmulator | undefined;
  let receiver: Listening | undefined;

  beforeAll(async () => {
    redis = await startRedisServer(['--enable-debug-command', 'yes']);
    client = createClient({ url: redis.url, disableOfflineQueue: true });
    admin = createClient({ url: redis.url });
    await Promise.all([client.connect(), admin.connect()]);
  });
  afterEach(async () => {
    await kudos?.close();
    await receiver?.close();
  });
  afterAll(async () => {
    await Promise.all([client.quit(), admin.quit()]);
    await redis.close();
  });

  /** The receiver's secret: only what it verified is kept for redrive(). */
  const SECRET = 'redis-faults-shop-secret';

  /** A receiver on its own prefix; `handled` counts successful handler runs per transaction. */
  async function shop(prefix: string, fail: () => boolean, told: string[] = []) {
    const handled = new Map<string, number>();
    const hook: KudosWebhookHandler = kudosWebhook({
      secret: SECRET,
      store: new RedisDedupeStore(client, { prefix, commandTimeoutMs: 2000 }),
      onError: (error) => told.push(`${error.code}: ${error.message}`),
      onNotification: (n) => {
        if (fail()) throw new Error('the shop database is down');
        if (n.tx.status === 'success') handled.set(n.tx.txHash, (handled.get(n.tx.txHash) ?? 0) + 1);
      },
    });
    receiver = await listenLocal(http.createServer((req, res) => hook(req, res)));
    return { hook, handled, url: `${receiver.url}/?token=${SECRET}` };
  }

  it('a claim whose Redis command timed out does not hold the key: 10 payments during DEBUG SLEEP 2.5 s, none lost', async () => {
    const { handled, url } = await shop(`slow:${randomUUID()}:`, () => false);
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: url }],
      paymentDelayMs: 5,
      webhook: { attempts: 5, retryDelayMs: 500, timeoutMs: 5000 },
    });
    // Redis stalls while the first deliveries claim their keys: every claim command times out (2 s).
    const sleeping = admin.sendCommand(['DEBUG', 'SLEEP', '2.5']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const hashes = Array.from({ length: 10 }, () =>
      kudos?.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' }),
    ).map((tx) => tx?.txHash as string);
    await sleeping;
    await kudos.idle();
    const firstAnswers = kudos.deliveries.filter((d) => d.attempt === 1 && d.txStatus === 'success');
    expect(firstAnswers.some((d) => d.responseStatus === 503)).toBe(true); // Redis was really slow
    expect(hashes.map((h) => handled.get(h) ?? 0)).toEqual(Array(10).fill(1));
  }, 30_000);

  it('keeps what failed after the sender gave up, durably: another instance lists it and redrives it', async () => {
    const prefix = `kept:${randomUUID()}:`;
    let broken = true;
    const first = await shop(prefix, () => broken);
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: first.url }],
      paymentDelayMs: 5,
      webhook: { attempts: 3, retryDelayMs: 50 },
    });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    await receiver?.close();
    receiver = undefined;
    // A new instance (say, after a restart) on the same Redis.
    broken = false;
    const second = await shop(prefix, () => broken);
    const kept = await second.hook.unprocessed();
    expect(kept.find((k) => k.key === `${tx.txHash}:success`)).toMatchObject({
      attempts: 3,
      lastError: expect.stringContaining('the shop database is down'),
    });
    const result = await second.hook.redrive();
    expect(result).toMatchObject({ failed: 0, remaining: 0 });
    expect(second.handled.get(tx.txHash)).toBe(1);
    expect(await second.hook.unprocessed()).toEqual([]);
  });

  it.each([
    ['not JSON', '{cut off'],
    ['JSON without attempts', '{"key":"x","receivedAt":1}'],
    ['JSON of another type', '[1,2,3]'],
  ])(
    'a kept record replaced by %s never blocks its payment: the redelivery is processed, told once',
    async (_, value) => {
      const prefix = `unreadable:${randomUUID()}:`;
      let broken = true;
      const told: string[] = [];
      const { handled, url } = await shop(prefix, () => broken, told);
      kudos = await startKudosEmulator({
        users: PAYMENT_USERS,
        agents: [{ id: 'shop-agent', webhookURL: url }],
        paymentDelayMs: 5,
        webhook: { attempts: 2, retryDelayMs: 20 },
      });
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle(); // the sender gave up: the payment is kept
      const { kept } = dedupeKeys(prefix, `${tx.txHash}:success`);
      expect(await admin.exists(kept)).toBe(1);
      await admin.set(kept, value); // edited by hand, or another program's key
      broken = false;
      const last = kudos.deliveries.filter((d) => d.txHash === tx.txHash && d.txStatus === 'success').at(-1);
      expect(kudos.resend(last?.id as number)).toBe(true);
      await kudos.idle();
      const resent = kudos.deliveries
        .filter((d) => d.txHash === tx.txHash && d.txStatus === 'success')
        .at(-1);
      expect(resent?.responseStatus).toBe(200);
      expect(handled.get(tx.txHash)).toBe(1);
      expect(await admin.exists(kept)).toBe(0); // processed: nothing left kept
      expect(told.filter((line) => line.startsWith('kept_unreadable'))).toEqual([
        `kept_unreadable: kept record ${kept} could not be read (not a kept notification of RedisDedupeStore); it is replaced`,
      ]);
    },
  );
});
