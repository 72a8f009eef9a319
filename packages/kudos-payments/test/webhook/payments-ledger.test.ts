import { describe, expect, it } from 'vitest';
import { type KudosOrderStoreChange, MemoryOrderStore } from '../../src/index.js';
import { Ledger } from '../../src/payments/ledger.js';
import type { KudosOrder, KudosPaymentRecord } from '../../src/payments/records.js';
import { newReference } from '../../src/payments/reference.js';

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
    const ledger = new Ledger(
      store,
      { dedupeTtlMs: 60_000, exceptionTtlMs: null, minExceptionUnits: 0n },
      Date.now,
    );
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
    const ledger = new Ledger(
      store,
      { dedupeTtlMs: 60_000, exceptionTtlMs: null, minExceptionUnits: 0n },
      Date.now,
    );
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
    const ledger = new Ledger(
      store,
      { dedupeTtlMs: 60_000, exceptionTtlMs: null, minExceptionUnits: 0n },
      Date.now,
    );
    const o = order();
    await ledger.createOrder(o);
    const saved = await ledger.decide(credit(o, 'CC'.repeat(32)), await ledger.order(o.reference));
    if (saved?.order) ledger.fulfil(saved.order);
    await expect.poll(async () => (await ledger.order(o.reference))?.value.status).toBe('fulfilled');
  });

  it('fulfilled marks waiting for their batch ride along the next decision: one write for both', async () => {
    const store = new CountingStore();
    const ledger = new Ledger(
      store,
      { dedupeTtlMs: 60_000, exceptionTtlMs: null, minExceptionUnits: 0n },
      Date.now,
    );
    const [a, b] = [order(), order()];
    await ledger.createOrder(a);
    await ledger.createOrder(b);
    const paidA = await ledger.decide(credit(a, 'A1'.repeat(32)), await ledger.order(a.reference));
    if (paidA?.order) ledger.fulfil(paidA.order);
    store.writes.length = 0;
    const paidB = await ledger.decide(credit(b, 'B1'.repeat(32)), await ledger.order(b.reference));
    expect(paidB?.order?.value.status).toBe('paid');
    expect(store.writes).toEqual([3]); // b paid, its payment, and a's fulfilled mark
    expect((await ledger.order(a.reference))?.value.status).toBe('fulfilled');
    await ledger.flushFulfilled();
    expect(store.writes).toEqual([3]); // nothing left for the batch
  });

  it('a rider that moved on does not stop the decision: written alone, the rider dropped', async () => {
    const store = new CountingStore();
    const ledger = new Ledger(
      store,
      { dedupeTtlMs: 60_000, exceptionTtlMs: null, minExceptionUnits: 0n },
      Date.now,
    );
    const [a, b] = [order(), order()];
    await ledger.createOrder(a);
    await ledger.createOrder(b);
    const paidA = await ledger.decide(credit(a, 'A2'.repeat(32)), await ledger.order(a.reference));
    if (!paidA?.order) throw new Error('a was not credited');
    ledger.fulfil(paidA.order);
    const moved = {
      id: `order:${a.reference}`,
      version: paidA.order.version,
      value: 'moved on',
      ttlMs: 60_000,
      listed: false,
    };
    await store.write([moved]);
    store.writes.length = 0;
    const paidB = await ledger.decide(credit(b, 'B2'.repeat(32)), await ledger.order(b.reference));
    expect(paidB?.order?.value.status).toBe('paid');
    expect(store.writes).toEqual([3, 2]); // with the rider (refused), then alone
    await ledger.flushFulfilled();
    expect((await store.read(`order:${a.reference}`))?.value).toBe('moved on');
  });

  it('an order remembered as this process wrote it, changed by another instance: the credit is refused, then read again', async () => {
    const store = new MemoryOrderStore();
    const here = new Ledger(
      store,
      { dedupeTtlMs: 60_000, exceptionTtlMs: null, minExceptionUnits: 0n },
      Date.now,
    );
    const there = new Ledger(
      store,
      { dedupeTtlMs: 60_000, exceptionTtlMs: null, minExceptionUnits: 0n },
      Date.now,
    );
    const o = order();
    await here.createOrder(o);
    // The other instance credits it first.
    expect(await there.decide(credit(o, 'C1'.repeat(32)), await there.order(o.reference))).toBeDefined();
    // This one still remembers it open (version 1): its credit is a compare-and-set, refused.
    const remembered = await here.orderToDecide(o.reference);
    expect(remembered).toMatchObject({ version: 1, value: { status: 'open' } });
    expect(await here.decide(credit(o, 'C2'.repeat(32)), remembered)).toBeUndefined();
    expect(await here.payment('C2'.repeat(32))).toBeUndefined();
    // Forgotten since: the next decision starts from the store's.
    expect((await here.orderToDecide(o.reference))?.value.status).toBe('paid');
  });
});
