import { describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { payLink } from '../../../../test/helpers/pay-link.js';
import { PaymentsShop, paymentsFixture } from '../../../../test/helpers/payments-shop.js';
import { MemoryDedupeStore, MemoryOrderStore } from '../../src/index.js';

// Health that strangers cannot flip (docs/payments.md#health): payments that credit no order are their
// own figures, apart from what waits unprocessed, with the emulator's real sender over real HTTP.

/** The documented /healthz rule (docs/payments.md#health). */
const healthy = (s: { storeOk: boolean; lookupOk: boolean; oldestUnprocessedMs: number | null }) =>
  s.storeOk && s.lookupOk && (s.oldestUnprocessedMs ?? 0) < 10 * 60_000;

describe('status(): exceptions counted apart from the health rule', () => {
  const f = paymentsFixture();

  it('50 strangers’ dust payments leave the rule healthy 11 minutes later, each counted as an exception', async () => {
    let now = Date.now();
    const shop = await new PaymentsShop(f.kudos).start({ now: () => now });
    f.shop = shop;
    for (let i = 0; i < 50; i++) {
      f.kudos.pay({
        from: 'alice',
        to: 'bobby',
        amount: '0.000000001',
        via: 'shop-agent',
        remarks: `dust ${i}`,
      });
    }
    await f.kudos.idle();
    expect(shop.exceptions).toHaveLength(50);
    now += 11 * 60_000;
    const status = await shop.payments.status();
    expect(status).toMatchObject({
      unprocessed: 0,
      oldestUnprocessedMs: null,
      exceptions: 50,
      storeOk: true,
    });
    expect(status.oldestExceptionMs).toBeGreaterThanOrEqual(11 * 60_000);
    expect(healthy(status)).toBe(true);
    // What does need the operator still flips it: a notification the handler cannot process.
    shop.failPaid = true;
    payLink(f.kudos, (await shop.payments.createOrder({ amount: '1' })).url, 'alice');
    await f.kudos.idle();
    now += 11 * 60_000;
    const failing = await shop.payments.status();
    expect(failing.unprocessed).toBe(1);
    expect(healthy(failing)).toBe(false);
    expect(failing.exceptions).toBe(50);
  });

  it('minExceptionAmount: dust below it is decided but neither listed, counted nor told; above it is', async () => {
    const shop = await new PaymentsShop(f.kudos).start({ minExceptionAmount: '0.01' });
    f.shop = shop;
    const dust = Array.from({ length: 5 }, () =>
      f.kudos.pay({ from: 'alice', to: 'bobby', amount: '0.000000001', via: 'shop-agent', remarks: 'hi' }),
    );
    const gift = f.kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '1',
      via: 'shop-agent',
      remarks: 'a gift',
    });
    await f.kudos.idle();
    expect(shop.exceptions.map((e) => [e.txHash, e.reason])).toEqual([[gift.txHash, 'no_order']]);
    expect((await shop.payments.exceptions()).map((u) => u.txHash)).toEqual([gift.txHash]);
    expect(await shop.payments.unprocessed()).toEqual([]);
    expect(await shop.payments.status()).toMatchObject({ exceptions: 1, unprocessed: 0 });
    // Decided all the same: a redelivery of dust is a duplicate, and it is not told then either.
    const delivery = f.kudos.deliveries.find((d) => d.txHash === dust[0]?.txHash && d.txStatus === 'success');
    expect(f.kudos.resend(delivery?.id as number)).toBe(true);
    await f.kudos.idle();
    expect(f.kudos.deliveries.at(-1)?.responseStatus).toBe(200);
    expect(shop.exceptions).toHaveLength(1);
  });

  it('refuses a minExceptionAmount that is not whole tokens, naming it', async () => {
    await expect(new PaymentsShop(f.kudos).start({ minExceptionAmount: 'a lot' })).rejects.toThrow(
      /kudosPayments option "minExceptionAmount" must be whole tokens/,
    );
  });
});

describe('check() without user: the status and the reason, never the order', () => {
  const f = paymentsFixture();

  it('answers a stranger holding a paid order’s public reference no data, amount or payer', async () => {
    const shop = await new PaymentsShop(f.kudos).start();
    f.shop = shop;
    const { order, url } = await shop.payments.createOrder({
      amount: '2',
      user: 'alice',
      data: { address: '12 Secret Lane', orderId: '1042' },
    });
    const tx = payLink(f.kudos, url, 'alice');
    await f.kudos.idle();
    // The memo (and so the reference) is on the chain for anyone to read.
    const stranger = await shop.payments.check({ reference: order.reference, txHash: tx.txHash });
    expect(stranger).toEqual({ status: 'paid' });
    expect(JSON.stringify(stranger)).not.toContain('Secret');
    const other = await shop.payments.check({ reference: order.reference, txHash: 'A'.repeat(64) });
    expect(Object.keys(other)).not.toContain('order');
    // The payer it was made for, signed in, sees the order.
    const payer = await shop.payments.check({ reference: order.reference, txHash: tx.txHash, user: 'alice' });
    expect(payer).toMatchObject({ status: 'paid', order: { data: { address: '12 Secret Lane' } } });
  });
});

describe('a stranger’s hash on the return page: no store touched', () => {
  const f = paymentsFixture({ users: [...PAYMENT_USERS, { id: 'carol-payee', password: 'carol-pass' }] });

  it('claims no key and writes no order record for transactions that pay someone else', async () => {
    const claims: string[] = [];
    const store = new (class extends MemoryDedupeStore {
      override claim(...args: Parameters<MemoryDedupeStore['claim']>) {
        claims.push(args[0]);
        return super.claim(...args);
      }
    })();
    const writes: number[] = [];
    const orders = new (class extends MemoryOrderStore {
      override write(...args: Parameters<MemoryOrderStore['write']>) {
        writes.push(args[0].length);
        return super.write(...args);
      }
    })();
    const shop = await new PaymentsShop(f.kudos).start({ store, orders });
    f.shop = shop;
    const { order } = await shop.payments.createOrder({ amount: '1' });
    writes.length = 0;
    // Public payments between other users (no agent of the shop, no wallet of the shop).
    const foreign = Array.from({ length: 20 }, () =>
      f.kudos.pay({ from: 'alice', to: 'carol-payee', amount: '1' }),
    );
    await f.kudos.idle();
    for (const tx of foreign) {
      expect(await shop.payments.check({ reference: order.reference, txHash: tx.txHash })).toEqual({
        status: 'pending',
      });
    }
    expect(claims).toEqual([]);
    expect(writes).toEqual([]);
    // The shop's own payment, by hash, is still decided (and credits nothing here: it names no order).
    const own = f.kudos.pay({ from: 'alice', to: 'bobby', amount: '1', remarks: 'no order' });
    await f.kudos.idle();
    // Decided (it names no order: an exception), so the page says it paid another order than this one.
    expect(await shop.payments.check({ reference: order.reference, txHash: own.txHash })).toEqual({
      status: 'not_this_order',
      reason: 'another_order',
    });
    expect(claims).toEqual([`${own.txHash}:success`]);
  });
});
