import { describe, expect, it } from 'vitest';
import { payLink } from '../../../../test/helpers/pay-link.js';
import { PaymentsShop, paymentsFixture } from '../../../../test/helpers/payments-shop.js';
import { MemoryOrderStore } from '../../src/index.js';

// Two instances of one shop on a shared order store, with the emulator's real sender: an order one
// instance made (and remembers as it wrote it) and the other credited is never credited twice by
// the first, and an exception it decides has its exact reason.

describe('two instances on one order store', () => {
  const f = paymentsFixture();

  it('the instance that made the order, told of a second payment after the other credited it: already_paid', async () => {
    const orders = new MemoryOrderStore();
    const maker = await new PaymentsShop(f.kudos).start({ orders });
    const other = await new PaymentsShop(f.kudos).start({ orders });
    try {
      const { order, url } = await maker.payments.createOrder({ amount: '1' });
      other.connect(); // the first payment reaches the other instance
      const first = payLink(f.kudos, url, 'alice');
      await f.kudos.idle();
      expect(other.paid.map((p) => p.txHash)).toEqual([first.txHash]);
      maker.connect(); // the second reaches the maker, which wrote the order open
      const second = payLink(f.kudos, url, 'alice');
      const underpaid = payLink(f.kudos, url, 'alice', (params) => params.set('amount', '0.5'));
      await f.kudos.idle();
      expect(maker.paid).toEqual([]);
      expect(maker.exceptions.map((e) => [e.txHash, e.reason])).toEqual([
        [second.txHash, 'already_paid'],
        [underpaid.txHash, 'already_paid'],
      ]);
      expect((await maker.payments.order(order.reference))?.payment?.txHash).toBe(first.txHash);
    } finally {
      await maker.server.close();
      await other.server.close();
    }
  });
});
