import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RedisDedupeStore, RedisOrderStore } from '../../packages/kudos-payments/src/redis/index.js';
import { PaymentsShop, paymentsFixture } from '../helpers/payments-shop.js';
import { keyTtls } from '../helpers/redis-keys.js';
import { redisWithClient } from '../helpers/redis-server.js';

// Strangers paying the shop's agent with no order in the memo make no_order exceptions: each one's
// record expires `exceptionTtlMs` after its decision (30 days by default, said as `keptUntil`), so
// nothing a passer-by pays makes the store grow without bound; `null` keeps them until acknowledged.

const DAY_MS = 24 * 3600 * 1000;

describe("exceptions on Redis have a TTL (the emulator's real sender)", () => {
  const fixture = paymentsFixture();
  const served = redisWithClient();

  const ttls = (prefix: string) => keyTtls(served.client, prefix);

  /** A shop on Redis stores under fresh prefixes, and `count` strangers' payments with no order. */
  async function strangersPay(count: number, exceptionTtlMs?: number | null) {
    const orders = `orders:${randomUUID()}:`;
    const shop = await new PaymentsShop(fixture.kudos).start({
      store: new RedisDedupeStore(served.client, { prefix: `dedupe:${randomUUID()}:` }),
      orders: new RedisOrderStore(served.client, { prefix: orders }),
      ...(exceptionTtlMs === undefined ? {} : { exceptionTtlMs }),
    });
    fixture.shop = shop;
    for (let i = 0; i < count; i++)
      fixture.kudos.pay({ from: 'alice', to: 'bobby', amount: '0.000000001', via: 'shop-agent' });
    await fixture.kudos.idle();
    return { shop, orders };
  }

  it('by default each no_order exception expires 30 days after its decision: keptUntil says so, every key has a TTL', async () => {
    const { shop, orders } = await strangersPay(20);
    expect(shop.exceptions).toHaveLength(20);
    for (const e of shop.exceptions) {
      expect(e.reason).toBe('no_order');
      expect(e.keptUntil).toBe(e.decidedAt + 30 * DAY_MS);
    }
    const keys = await ttls(orders);
    const records = [...keys].filter(([key]) => key.includes(':r:'));
    expect(records).toHaveLength(20);
    for (const [, ttl] of records) {
      expect(ttl).toBeGreaterThan(29 * DAY_MS);
      expect(ttl).toBeLessThanOrEqual(30 * DAY_MS);
    }
    const status = await shop.payments.status();
    expect(status).toMatchObject({ exceptions: 20, unprocessed: 0 });
    expect(await shop.payments.exceptions()).toHaveLength(20);
  });

  it('past exceptionTtlMs they are gone: not listed, not counted, no key left behind', async () => {
    const { shop, orders } = await strangersPay(10, 1500);
    expect(shop.exceptions).toHaveLength(10);
    expect((await shop.payments.status()).exceptions).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 1800));
    expect(await shop.payments.exceptions()).toEqual([]);
    const status = await shop.payments.status();
    expect(status).toMatchObject({ exceptions: 0, oldestExceptionMs: null, unprocessed: 0, storeOk: true });
    // The records expired with their TTL, and reading the list forgot their index entries.
    expect([...(await ttls(orders)).keys()].filter((key) => !key.endsWith('{kudos-check}'))).toEqual([]);
  });

  it('exceptionTtlMs: null keeps them until acknowledged (no TTL), and acknowledging gives them one', async () => {
    const { shop, orders } = await strangersPay(3, null);
    expect(shop.exceptions.map((e) => e.keptUntil)).toEqual([null, null, null]);
    const records = () => ttls(orders).then((all) => [...all].filter(([key]) => key.includes(':r:')));
    expect((await records()).map(([, ttl]) => ttl)).toEqual([-1, -1, -1]);
    for (const e of shop.exceptions) expect(await shop.payments.acknowledge(e.txHash)).toBe(true);
    for (const [, ttl] of await records()) expect(ttl).toBeGreaterThan(0);
    expect((await shop.payments.status()).exceptions).toBe(0);
  });

  it('a bad exceptionTtlMs is a TypeError naming the option', async () => {
    for (const bad of [0, -1, Number.NaN, '1' as unknown as number]) {
      await expect(new PaymentsShop(fixture.kudos).start({ exceptionTtlMs: bad })).rejects.toThrow(
        /kudosPayments option "exceptionTtlMs" must be a positive number/,
      );
    }
  });
});
