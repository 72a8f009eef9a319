import { describe, expect, it } from 'vitest';
import { payLink } from '../../../../test/helpers/pay-link.js';
import { PaymentsShop, paymentsFixture } from '../../../../test/helpers/payments-shop.js';
import type { KudosOrderStoreChange } from '../../src/index.js';
import { MemoryOrderStore } from '../../src/index.js';

// An order whose onPaid returned is never left `paid`: a `fulfilled` mark the order store refused (a
// full Redis, a locked file) is tried again until it lands, with the emulator's real sender.

/** A memory order store that refuses the next `refusals` writes that mark an order fulfilled. */
class RefusingFulfilled extends MemoryOrderStore {
  refusals = 0;
  refused = 0;
  override async write(changes: readonly KudosOrderStoreChange[]): Promise<boolean> {
    if (this.refusals > 0 && changes.some((c) => c.value.includes('"status":"fulfilled"'))) {
      this.refusals--;
      this.refused++;
      throw new Error('OOM command not allowed when used memory > maxmemory');
    }
    return super.write(changes);
  }
}

describe('a fulfilled mark the order store refused', () => {
  const f = paymentsFixture();

  it('is written once the store takes it again: every order paid, told once, then fulfilled', async () => {
    const orders = new RefusingFulfilled();
    const shop = await new PaymentsShop(f.kudos).start({ orders });
    f.shop = shop;
    const made = await Promise.all(
      Array.from({ length: 5 }, () => shop.payments.createOrder({ amount: '1' })),
    );
    orders.refusals = 4; // the batch, then each alone, then a retry
    for (const { url } of made) payLink(f.kudos, url, 'alice');
    await f.kudos.idle();
    expect(shop.paid).toHaveLength(5);
    const status = async (reference: string) =>
      JSON.parse((await orders.read(`order:${reference}`))?.value ?? '{}').status as string;
    await expect
      .poll(async () => Promise.all(made.map(({ order }) => status(order.reference))), { timeout: 15_000 })
      .toEqual(Array(5).fill('fulfilled'));
    expect(orders.refused).toBe(4);
    expect(new Set(shop.paid.map((p) => p.order.reference)).size).toBe(5); // each told once
  });
});
