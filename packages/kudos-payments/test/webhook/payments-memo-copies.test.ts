import { describe, expect, it } from 'vitest';
import { PaymentsShop, paymentsFixture } from '../../../../test/helpers/payments-shop.js';

// Memos are public on the chain: anyone can copy a paid order's memo into a payment of a nanokudos,
// and anyone can paste an order's reference into another order's label. With the emulator's real
// sender: below minExceptionAmount, no such copy is told or counted (a real second payment in full
// still is); and a memo names its own order only, whatever its label says.

function linkParams(url: string) {
  const params = new URL(url).searchParams;
  return { remarks: params.get('remarks') ?? '', state: params.get('state') ?? '' };
}

describe('copies of a public memo, and labels that name an order', () => {
  const fixture = paymentsFixture();

  it('40 dust copies of a paid order’s memo are neither told nor counted; a real second payment is', async () => {
    const shop = await new PaymentsShop(fixture.kudos).start({ minExceptionAmount: '0.01' });
    fixture.shop = shop;
    const { order, url } = await shop.payments.createOrder({ amount: '1' });
    const paid = { from: 'alice', to: 'bobby', via: 'shop-agent', ...linkParams(url) };
    fixture.kudos.pay({ ...paid, amount: '1' });
    await fixture.kudos.idle();
    expect(shop.paidTimes(order.reference)).toBe(1);
    // The memo, read off the chain by a stranger, paid 40 times with a nanokudos each.
    const memo = { remarks: linkParams(url).remarks };
    for (let i = 0; i < 40; i++) {
      fixture.kudos.pay({
        from: 'shop-agent',
        to: 'bobby',
        via: 'shop-agent',
        amount: '0.000000001',
        ...memo,
      });
    }
    await fixture.kudos.idle();
    expect(shop.exceptions).toEqual([]);
    expect((await shop.payments.status()).exceptions).toBe(0);
    expect(await shop.payments.exceptions()).toEqual([]);
    // The payer pays the whole price again by mistake: that one is told, to refund.
    fixture.kudos.pay({ ...paid, amount: '1' });
    await fixture.kudos.idle();
    expect(shop.exceptions.map((e) => [e.reason, e.reference])).toEqual([['already_paid', order.reference]]);
    expect((await shop.payments.status()).exceptions).toBe(1);
    expect(shop.paidTimes(order.reference)).toBe(1);
  });

  it('a label naming another order’s reference never makes an order_conflict of the order’s own payment', async () => {
    const shop = await new PaymentsShop(fixture.kudos).start();
    fixture.shop = shop;
    const other = await shop.payments.createOrder({ amount: '1' });
    const { order, url } = await shop.payments.createOrder({
      amount: '2',
      memo: `refill of ${other.order.reference}, thanks`,
    });
    const { remarks } = linkParams(url);
    expect(remarks).not.toContain(other.order.reference);
    expect(remarks.endsWith(order.reference)).toBe(true);
    fixture.kudos.pay({ from: 'alice', to: 'bobby', via: 'shop-agent', amount: '2', ...linkParams(url) });
    await fixture.kudos.idle();
    expect(shop.paid.map((p) => p.order.reference)).toEqual([order.reference]);
    expect(shop.exceptions).toEqual([]);
    expect((await shop.payments.order(other.order.reference))?.status).toBe('open');
  });
});
