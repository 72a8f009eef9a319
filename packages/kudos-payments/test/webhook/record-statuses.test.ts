import { describe, expect, it } from 'vitest';
import { payLink } from '../../../../test/helpers/pay-link.js';
import { PaymentsShop, paymentsFixture, SHOP_SECRET } from '../../../../test/helpers/payments-shop.js';
import { deliver } from '../../../../test/helpers/webhook-app.js';
import { parseKudosNotification } from '../../src/index.js';

// A transaction record's life as the service writes it (docs/kudos-service.md#a-records-life):
// `pending`, then `success` with `completeTs`, or `fail` or `timeout` without it; a MultiSend's `toId`
// a list in which a receiver without an account is ''. The emulator's real sender sends these shapes,
// and the shop decides each as the service means it.

const f = paymentsFixture();

/** The `tx` of each notification the emulator's sender delivered for `hash`, by status. */
function sent(hash: string): Map<string, Record<string, unknown>> {
  const bodies = f.kudos.deliveries.filter((d) => d.txHash === hash).map((d) => JSON.parse(d.body).tx);
  return new Map(bodies.map((tx) => [tx.status, tx]));
}

describe('a record’s life, as the emulator sends it and the shop decides it', () => {
  it('sends completeTs with a success alone: not with pending, fail or timeout', async () => {
    f.shop = await new PaymentsShop(f.kudos).start();
    f.kudos.webhookMode.pendingFirst = true;
    try {
      const paid = f.kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      const failed = f.kudos.pay({
        from: 'alice',
        to: 'bobby',
        amount: '1',
        via: 'shop-agent',
        outcome: 'fail',
      });
      const lost = f.kudos.pay({
        from: 'alice',
        to: 'bobby',
        amount: '1',
        via: 'shop-agent',
        outcome: 'timeout',
      });
      await f.kudos.idle();
      expect(sent(paid.txHash).get('success')?.completeTs).toEqual(expect.any(Number));
      for (const [hash, status] of [
        [paid.txHash, 'pending'],
        [failed.txHash, 'pending'],
        [failed.txHash, 'fail'],
        [lost.txHash, 'timeout'],
      ] as const) {
        const tx = sent(hash).get(status);
        expect(tx).toMatchObject({ status, type: 'cosmosTransfer', ts: expect.any(Number) });
        expect(tx).not.toHaveProperty('completeTs');
      }
    } finally {
      f.kudos.webhookMode.pendingFirst = false;
    }
  });

  it('a fail and a timeout are accepted and decided, never credited; the order is then paid by a success, once', async () => {
    const shop = await new PaymentsShop(f.kudos).start();
    f.shop = shop;
    const { order, url } = await shop.payments.createOrder({ amount: '1' });
    for (const outcome of ['fail', 'timeout'] as const) {
      f.kudos.setNextPaymentOutcome(outcome);
      const tx = payLink(f.kudos, url, 'alice');
      await f.kudos.idle();
      const delivery = f.kudos.deliveries.filter((d) => d.txHash === tx.txHash);
      expect(delivery.map((d) => [d.txStatus, d.responseStatus])).toEqual([[outcome, 200]]);
      // Decided once: a redelivery is a duplicate.
      expect(f.kudos.resend(delivery[0]?.id ?? -1)).toBe(true);
      await f.kudos.idle();
      expect(f.kudos.deliveries.at(-1)?.responseStatus).toBe(200);
    }
    expect(shop.paid).toEqual([]);
    expect(shop.exceptions).toEqual([]);
    expect(await shop.payments.unprocessed()).toEqual([]);
    const tx = payLink(f.kudos, url, 'alice');
    await f.kudos.idle();
    expect(shop.paid.map((p) => [p.order.reference, p.txHash])).toEqual([[order.reference, tx.txHash]]);
  });

  it('a MultiSend record whose toId holds "" (a receiver without an account) is read, and the shop’s share credited', async () => {
    const shop = await new PaymentsShop(f.kudos).start();
    f.shop = shop;
    const { order, url } = await shop.payments.createOrder({ amount: '2' });
    f.kudos.setWebhook('shop-agent', undefined); // the service's own delivery is the one posted below
    // The shop's 2 and the agent's fee of 1: one MsgMultiSend with two outputs.
    const tx = payLink(f.kudos, url, 'alice', (params) => params.set('fee', '1'));
    await f.kudos.idle();
    const record = (await (await fetch(`${f.kudos.baseURL}/tx/id/${tx.txHash}`)).json()) as Record<
      string,
      unknown
    >;
    expect(record.toId).toEqual(['bobby', 'shop-agent']);
    // As the service's record keeper writes an output whose address has no account.
    const multi = { ...record, toId: ['bobby', ''] };
    const state = new URL(url).searchParams.get('state');
    const body = { tx: multi, metadata: { kudosPay: { state } } };
    expect(parseKudosNotification(body).tx.toId).toEqual(['bobby', null]);
    const answer = await deliver(`${shop.server.url}?token=${SHOP_SECRET}`, body);
    expect(answer.status).toBe(200);
    expect(shop.paid).toEqual([
      expect.objectContaining({
        order: expect.objectContaining({ reference: order.reference }),
        received: 2_000_000_000n,
      }),
    ]);
  });
});
