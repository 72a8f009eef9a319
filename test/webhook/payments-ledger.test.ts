import { describe, expect, it } from 'vitest';
import { type KudosOrderStoreChange, MemoryOrderStore } from '../../src/webhook/index.js';
import { Ledger } from '../../src/webhook/payments/ledger.js';
import type { KudosOrder, KudosPaymentRecord } from '../../src/webhook/payments/records.js';
import { newReference } from '../../src/webhook/payments/reference.js';

// The ledger of kudosPayments(): an order is credited and its payment decided in one write, and the
// orders the app was told of are marked fulfilled together, one write for all.

const order = (): KudosOrder => ({
  reference: newReference(),
  amount: '1',
  units: 1_000_000_000n,
  user: null,
  status: 'open',
  createdAt: 0,
  expiresAt: Date.now() + 60_000,
  data: {},
  payment: null,
});
const credit = (o: KudosOrder, txHash: string): KudosPaymentRecord => ({
  txHash,
  outcome: 'credited',
  reference: o.reference,
  received: o.units,
  payer: null,
  source: 'webhook',
  decidedAt: 0,
  told: false,
  acknowledged: false,
});

/** A memory store that counts its writes and how many records each held. */
class CountingStore extends MemoryOrderStore {
  readonly writes: number[] = [];
  override write(changes: readonly KudosOrderStoreChange[]): Promise<boolean> {
    this.writes.push(changes.length);
    return super.write(changes);
  }
}

describe('Ledger', () => {
  it('credits an order and records its payment in one write; a second credit of it is refused', async () => {
    const store = new CountingStore();
    const ledger = new Ledger(store, 60_000, Date.now);
    const o = order();
    await ledger.createOrder(o);
    const read = await ledger.order(o.reference);
    const saved = await ledger.decide(credit(o, 'AA'.repeat(32)), read);
    expect(saved?.order?.value).toMatchObject({ status: 'paid', payment: { txHash: 'AA'.repeat(32) } });
    expect(store.writes).toEqual([1, 2]);
    // Another payment that read the order while it was open: refused, nothing written.
    expect(await ledger.decide(credit(o, 'BB'.repeat(32)), read)).toBeUndefined();
    expect(await ledger.payment('BB'.repeat(32))).toBeUndefined();
  });

  it('marks the orders told within a moment fulfilled in one write; one that moved on does not stop the others', async () => {
    const store = new CountingStore();
    const ledger = new Ledger(store, 60_000, Date.now);
    const orders = [order(), order(), order()];
    const paid = [];
    for (const [i, o] of orders.entries()) {
      await ledger.createOrder(o);
      const saved = await ledger.decide(credit(o, String(i).repeat(64)), await ledger.order(o.reference));
      if (saved?.order) paid.push(saved.order);
    }
    store.writes.length = 0;
    for (const o of paid) ledger.fulfil(o);
    await ledger.flushFulfilled();
    expect(store.writes).toEqual([3]);
    for (const o of orders) expect((await ledger.order(o.reference))?.value.status).toBe('fulfilled');

    // One of the next batch changed meanwhile (its version moved on): the others are written alone.
    const more = [order(), order()];
    const again = [];
    for (const [i, o] of more.entries()) {
      await ledger.createOrder(o);
      const saved = await ledger.decide(credit(o, String(i + 5).repeat(64)), await ledger.order(o.reference));
      if (saved?.order) again.push(saved.order);
    }
    const [first, second] = again as [NonNullable<(typeof again)[0]>, NonNullable<(typeof again)[0]>];
    ledger.fulfil(first);
    ledger.fulfil(second);
    await store.write([
      {
        id: `order:${first.value.reference}`,
        version: first.version,
        value: 'moved on',
        ttlMs: 60_000,
        listed: false,
      },
    ]);
    store.writes.length = 0;
    await ledger.flushFulfilled();
    expect(store.writes).toEqual([2, 1, 1]);
    expect((await ledger.order(second.value.reference))?.value.status).toBe('fulfilled');
    expect((await store.read(`order:${first.value.reference}`))?.value).toBe('moved on');
  });

  it('writes the fulfilled orders by itself, a moment after the last was told', async () => {
    const store = new CountingStore();
    const ledger = new Ledger(store, 60_000, Date.now);
    const o = order();
    await ledger.createOrder(o);
    const saved = await ledger.decide(credit(o, 'CC'.repeat(32)), await ledger.order(o.reference));
    if (saved?.order) ledger.fulfil(saved.order);
    await expect.poll(async () => (await ledger.order(o.reference))?.value.status).toBe('fulfilled');
  });
});
