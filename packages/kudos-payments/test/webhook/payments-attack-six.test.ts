import http from 'node:http';
import net from 'node:net';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { listenLocal } from '../../../../test/helpers/listen.js';
import { payLink } from '../../../../test/helpers/pay-link.js';
import { PaymentsShop, paymentsFixture } from '../../../../test/helpers/payments-shop.js';
import { sharedRedis } from '../../../../test/helpers/redis-server.js';
import { deliver } from '../../../../test/helpers/webhook-app.js';
import {
  cosmosConfirmer,
  type KudosNotification,
  type KudosRefusal,
  kudosWebhook,
  MemoryOrderStore,
} from '../../src/index.js';
import { RedisDedupeStore } from '../../src/redis/index.js';

// The sixth attack round against kudosPayments() and kudosWebhook(), with the emulator's real sender:
// a forged body must not bury a real payment, the return page is no free amplifier, every path
// decides alike, and expiry is judged at the block's time.

const USERS = [...PAYMENT_USERS, { id: 'mallory', password: 'pw' }];

/** The service's record of `hash` (what a forger copies: the hash is public on the chain). */
async function recordOf(kudos: KudosEmulator, hash: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${kudos.baseURL}/tx/id/${hash}`)).json()) as Record<string, unknown>;
}

/** Copies of a real record that fail confirmation, as a forger would post them first. */
function forgeries(record: Record<string, unknown>): unknown[] {
  return [
    { tx: { ...record, amount: { amount: '1', denom: 'nanokudos' } }, metadata: {} },
    { tx: { ...record, amount: { amount: '2000000000', denom: 'ibc/FAKE' } }, metadata: {} },
    { tx: { ...record, to: [] }, metadata: {} },
  ];
}

describe('a forged body never buries a real payment (secret: false)', () => {
  const f = paymentsFixture({ users: USERS, webhook: { attempts: 2, retryDelayMs: 20, timeoutMs: 2000 } });

  it('the real delivery and check() still credit the order after forged copies came first', async () => {
    const shop = await new PaymentsShop(f.kudos).start({ secret: false });
    f.shop = shop;
    const { order, url } = await shop.payments.createOrder({ amount: '2' });
    f.kudos.setWebhook('shop-agent', undefined); // Alice's notification is late
    const tx = payLink(f.kudos, url, 'alice');
    await f.kudos.idle();
    for (const body of forgeries(await recordOf(f.kudos, tx.txHash))) {
      // The chain contradicts each: refused, deciding nothing.
      const forged = await deliver(shop.server.url, body);
      expect([forged.status, forged.json.code]).toEqual([422, 'unconfirmed']);
    }
    expect(shop.paid).toEqual([]);
    // The real delivery: processed, not a duplicate.
    shop.connect(false);
    const delivery = f.kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await f.kudos.idle();
    expect(f.kudos.deliveries.find((d) => d.txHash === delivery.txHash)?.responseStatus).toBe(200);
    const real = await deliver(shop.server.url, { tx: await recordOf(f.kudos, tx.txHash), metadata: {} });
    expect(real.json).toMatchObject({ ok: true });
    expect(real.json.duplicate).toBeUndefined();
    expect(shop.paid.map((p) => p.order.reference)).toEqual([order.reference]);
    expect(await shop.payments.check({ reference: order.reference, txHash: tx.txHash })).toMatchObject({
      status: 'paid',
    });
  });

  it('a forged copy after a failed onPaid leaves the kept record: redrive() credits the order', async () => {
    const shop = await new PaymentsShop(f.kudos).start({ secret: false });
    f.shop = shop;
    shop.connect(false);
    const { order, url } = await shop.payments.createOrder({ amount: '1' });
    shop.failPaid = true;
    const tx = payLink(f.kudos, url, 'alice');
    await f.kudos.idle();
    expect(await shop.payments.unprocessed()).toEqual([expect.objectContaining({ txHash: tx.txHash })]);
    for (const body of forgeries(await recordOf(f.kudos, tx.txHash))) await deliver(shop.server.url, body);
    expect(await shop.payments.unprocessed()).toHaveLength(1);
    shop.failPaid = false;
    expect(await shop.payments.redrive()).toMatchObject({ processed: 1 });
    expect(shop.paid.map((p) => p.order.reference)).toEqual([order.reference]);
  });

  it('kudosWebhook({ secret: false, confirm }): a forged copy first, then the real one is handled as paid', async () => {
    const handled: KudosNotification[] = [];
    const hook = kudosWebhook({
      secret: false,
      confirm: cosmosConfirmer({ baseURL: f.kudos.baseURL, wallet: f.kudos.walletOf('bobby') }),
      onNotification: (n) => {
        handled.push(n);
      },
    });
    const server = await listenLocal(http.createServer((req, res) => hook(req, res)));
    try {
      const tx = f.kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await f.kudos.idle();
      const record = await recordOf(f.kudos, tx.txHash);
      for (const body of forgeries(record)) await deliver(server.url, body);
      const real = await deliver(server.url, { tx: record, metadata: {} });
      expect(real.json.duplicate).toBeUndefined();
      expect(handled.filter((n) => n.paid).map((n) => n.tx.txHash)).toEqual([tx.txHash]);
      // Now the key is closed: the real one again is a duplicate.
      expect((await deliver(server.url, { tx: record, metadata: {} })).json.duplicate).toBe(true);
    } finally {
      await server.close();
    }
  });
});

/** A stand-in for the service's record lookup: counts the lookups and how many run at once. */
async function slowService(delayMs: number) {
  const stats = { lookups: 0, inFlight: 0, most: 0 };
  const server = await listenLocal(
    http.createServer((req, res) => {
      stats.lookups++;
      stats.inFlight++;
      stats.most = Math.max(stats.most, stats.inFlight);
      setTimeout(() => {
        stats.inFlight--;
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      }, delayMs);
      req.resume();
    }),
  );
  return { ...stats, stats, server };
}

describe('the return page costs the shop bounded work', () => {
  let service: Awaited<ReturnType<typeof slowService>>;
  let kudos: KudosEmulator;
  beforeAll(async () => {
    service = await slowService(200);
    kudos = await startKudosEmulator({ users: USERS, paymentDelayMs: 5 });
  });
  afterAll(async () => {
    await service?.server.close();
    await kudos?.close();
  });

  const randomHash = () =>
    Array.from({ length: 64 }, () => '0123456789ABCDEF'[Math.floor(Math.random() * 16)]).join('');

  it('at most 32 lookups in flight, one per hash, and a hash the service does not know is not looked up again soon', async () => {
    const shop = await new PaymentsShop(kudos).start({ baseURL: `${service.server.url}/api` });
    try {
      const { order } = await shop.payments.createOrder({ amount: '1' });
      const check = (txHash: string) => shop.payments.check({ reference: order.reference, txHash });
      // 300 visitors with random hashes at once: at most 32 lookups at a time, the rest pending at once.
      const answers = await Promise.all(Array.from({ length: 300 }, () => check(randomHash())));
      expect(answers.every((a) => a.status === 'pending')).toBe(true);
      expect(service.stats.most).toBeLessThanOrEqual(32);
      expect(service.stats.lookups).toBeLessThanOrEqual(32);
      // 200 visitors with one hash: one lookup.
      const before = service.stats.lookups;
      const hash = randomHash();
      await Promise.all(Array.from({ length: 200 }, () => check(hash)));
      expect(service.stats.lookups - before).toBe(1);
      // The same unknown hash again, soon: remembered, no new lookup.
      await check(hash);
      expect(service.stats.lookups - before).toBe(1);
    } finally {
      await shop.server.close();
    }
  });

  it('the limit is an option: maxCheckLookups', async () => {
    const shop = await new PaymentsShop(kudos).start({
      baseURL: `${service.server.url}/api`,
      maxCheckLookups: 4,
    });
    try {
      const { order } = await shop.payments.createOrder({ amount: '1' });
      service.stats.most = 0;
      await Promise.all(
        Array.from({ length: 50 }, () =>
          shop.payments.check({ reference: order.reference, txHash: randomHash() }),
        ),
      );
      expect(service.stats.most).toBeLessThanOrEqual(4);
      await expect(new PaymentsShop(kudos).start({ maxCheckLookups: 0 })).rejects.toThrow(
        '"maxCheckLookups"',
      );
    } finally {
      await shop.server.close();
    }
  });

  it('500 visitors on a hash a delivery holds: each told its decision, the store not polled, no refusal told', async () => {
    const orders = new MemoryOrderStore();
    const read = orders.read.bind(orders);
    let reads = 0;
    orders.read = (id) => {
      reads++;
      return read(id);
    };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inOnPaid = false;
    const onPaid = () => {
      inOnPaid = true;
      return gate;
    };
    const shop = await new PaymentsShop(kudos).start({ orders, onPaid });
    try {
      const { order, url } = await shop.payments.createOrder({ amount: '1' });
      const tx = payLink(kudos, url, 'alice');
      await tx.settled;
      await expect.poll(() => inOnPaid, { timeout: 15_000 }).toBe(true); // the delivery is in onPaid now
      reads = 0;
      const waiting = Promise.all(
        Array.from({ length: 500 }, () =>
          shop.payments.check({ reference: order.reference, txHash: tx.txHash }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      release();
      const answers = await waiting;
      expect(answers.every((a) => a.status === 'paid')).toBe(true);
      // A few reads per visitor (before, after the lookup, after the decision), not one per 50 ms.
      expect(reads).toBeLessThanOrEqual(500 * 4);
      await kudos.idle();
      expect(shop.errors.map((e) => e.code)).not.toContain('in_progress');
    } finally {
      release();
      await shop.server.close();
    }
  });
});

describe('every path decides alike, expiry at the block’s time, acknowledge says what it did', () => {
  const f = paymentsFixture({ users: USERS, webhook: { attempts: 2, retryDelayMs: 20, timeoutMs: 2000 } });

  it('a memo edited to hold no reference, state intact, is no_order on the notification and on the return page alike', async () => {
    const shop = await new PaymentsShop(f.kudos).start();
    f.shop = shop;
    const first = await shop.payments.createOrder({ amount: '1' });
    const byNotification = payLink(f.kudos, first.url, 'alice', (p) => p.set('remarks', 'a mug'));
    await f.kudos.idle();
    const second = await shop.payments.createOrder({ amount: '1' });
    f.kudos.setWebhook('shop-agent', undefined);
    const byReturn = payLink(f.kudos, second.url, 'alice', (p) => p.set('remarks', 'a mug'));
    await f.kudos.idle();
    expect(
      await shop.payments.check({ reference: second.order.reference, txHash: byReturn.txHash }),
    ).toMatchObject({
      status: 'not_this_order',
      reason: 'another_order',
    });
    expect(shop.paid).toEqual([]);
    expect(shop.exceptions.map((e) => [e.txHash, e.reason, e.source])).toEqual([
      [byNotification.txHash, 'no_order', 'webhook'],
      [byReturn.txHash, 'no_order', 'reconcile'],
    ]);
  });

  it('a payment made before expiresAt is credited however late it is brought; acknowledge() twice says false the second time', async () => {
    const shop = await new PaymentsShop(f.kudos).start();
    f.shop = shop;
    f.kudos.setWebhook('shop-agent', undefined); // the notification comes late
    const { order, url } = await shop.payments.createOrder({ amount: '1', expiresInMs: 1500 });
    const tx = payLink(f.kudos, url, 'alice');
    await f.kudos.idle();
    await new Promise((resolve) => setTimeout(resolve, 2000)); // past expiresAt now
    expect(Date.now()).toBeGreaterThan(order.expiresAt);
    // Brought by the return page's lookup of its hash, after expiresAt: judged at the block's time.
    expect(await shop.payments.check({ reference: order.reference, txHash: tx.txHash })).toMatchObject({
      status: 'paid',
    });
    expect(shop.paid.map((p) => p.order.reference)).toEqual([order.reference]);
    // An underpayment to acknowledge, twice.
    shop.connect();
    const cheap = await shop.payments.createOrder({ amount: '2' });
    const under = payLink(f.kudos, cheap.url, 'alice', (p) => p.set('amount', '1'));
    await f.kudos.idle();
    expect(await shop.payments.acknowledge(under.txHash)).toBe(true);
    expect(await shop.payments.acknowledge(under.txHash)).toBe(false);
    expect(await shop.payments.acknowledge('F'.repeat(64))).toBe(false);
  });
});

describe('no store key outlives an hour for a hash that pays the shop nothing (a real redis-server)', () => {
  let kudos: KudosEmulator;
  let redis: Awaited<ReturnType<typeof sharedRedis>>;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    kudos = await startKudosEmulator({ users: USERS, paymentDelayMs: 5 });
    redis = await sharedRedis();
    client = createClient({ url: redis.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.quit();
    await redis?.close();
    await kudos?.close();
  });

  it('other people’s real payments offered on the return page leave no key with a TTL over an hour', async () => {
    const prefix = `attack6:${Date.now()}:`;
    const store = new RedisDedupeStore(client, { prefix });
    const shop = await new PaymentsShop(kudos).start({ store });
    try {
      kudos.setWebhook('shop-agent', undefined);
      const { order } = await shop.payments.createOrder({ amount: '1' });
      const theirs = Array.from({ length: 20 }, () =>
        kudos.pay({ from: 'alice', to: 'mallory', amount: '1', via: 'shop-agent' }),
      );
      await kudos.idle();
      for (const tx of theirs) {
        expect(await shop.payments.check({ reference: order.reference, txHash: tx.txHash })).toMatchObject({
          status: 'pending',
        });
      }
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
        keys.push(...(Array.isArray(batch) ? batch : [batch]));
      }
      for (const key of keys) {
        const ttl = await client.pTTL(key);
        expect(ttl === -2 || (ttl > 0 && ttl <= 3600_000), `${key}: ${ttl}`).toBe(true);
      }
      expect(shop.paid).toEqual([]);
    } finally {
      await shop.server.close();
    }
  });
});

describe('a notification body read within a time limit', () => {
  it('answers 408 body_timeout to a body that drips, and keeps nothing', async () => {
    const errors: KudosRefusal[] = [];
    const hook = kudosWebhook({
      secret: 'drip-secret-0123456789abcdef',
      bodyTimeoutMs: 300,
      onNotification: () => undefined,
      onError: (error) => {
        errors.push(error);
      },
    });
    const server = await listenLocal(http.createServer((req, res) => hook(req, res)));
    try {
      const { port } = new URL(server.url);
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(
            'POST /?token=drip-secret-0123456789abcdef HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
          );
          const drip = setInterval(() => socket.write(' '), 100);
          let text = '';
          socket.on('data', (d) => {
            text += d.toString();
          });
          socket.on('close', () => {
            clearInterval(drip);
            resolve(text);
          });
          setTimeout(() => socket.destroy(), 3000);
        });
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(answer).toContain('"code":"body_timeout"');
      expect(errors.map((e) => e.code)).toEqual(['body_timeout']);
      expect(await hook.unprocessed()).toEqual([]);
      expect(() =>
        kudosWebhook({ secret: false, bodyTimeoutMs: -1, onNotification: () => undefined }),
      ).toThrow('"bodyTimeoutMs"');
    } finally {
      await server.close();
    }
  });
});
