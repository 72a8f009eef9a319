import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chainServer, msgSend, WALLETS } from '../../../../test/helpers/chain-answer.mjs';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';
import { payLink } from '../../../../test/helpers/pay-link.js';
import { PaymentsShop, SHOP_SECRET } from '../../../../test/helpers/payments-shop.js';
import { describeSqlite } from '../../../../test/helpers/sqlite.js';
import { kudosPayments } from '../../src/index.js';
import { SqliteDedupeStore } from '../../src/sqlite/index.js';

// kudosPayments() against the emulator's real sender, tried as an attacker would: every path that
// brings a payment (notification, redelivery, redrive, reconcile, the return page) credits the one
// order the transaction names, paid in full to the shop's own wallet by the right user, once.

const SECRET = SHOP_SECRET;
const USERS = [
  ...PAYMENT_USERS,
  { id: 'mallory', password: 'evil-pass' },
  { id: 'mallory-alt', password: 'pw' },
];

/** A shop on kudosPayments(): what its onPaid and onException were told. */
const Shop = PaymentsShop;
type Shop = PaymentsShop;

describe('kudosPayments(): orders paid through the widget, credited by every path alike', () => {
  let kudos: KudosEmulator;
  let shop: Shop;
  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: USERS,
      paymentDelayMs: 5,
      webhook: { attempts: 3, retryDelayMs: 20, timeoutMs: 2000 },
    });
  });
  afterAll(() => kudos?.close());
  afterEach(async () => {
    await kudos.idle();
    await shop?.server.close();
  });

  it('makes the widget link: receiver, amount, agent, fee, the reference as state and in the memo', async () => {
    shop = await new Shop(kudos).start({ fee: '0.1' });
    const { order, url } = await shop.payments.createOrder({
      amount: '2',
      user: 'alice',
      memo: 'Order 42 at the shop',
      redirectURI: 'http://localhost:3000/paid',
      data: { id: '42' },
    });
    expect(order).toMatchObject({
      amount: '2',
      units: 2_000_000_000n,
      user: 'alice',
      status: 'open',
      data: { id: '42' },
    });
    expect(order.reference).toMatch(/^ko[0-9a-f]{32}$/);
    const link = new URL(url);
    expect(`${link.origin}${link.pathname}`).toBe(`${kudos.authURL}/in/widget/pay`);
    expect(Object.fromEntries(link.searchParams)).toEqual({
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
      fee: '0.1',
      remarks: `Order 42 at the shop ${order.reference}`,
      state: order.reference,
      redirect_uri: 'http://localhost:3000/paid',
      blocking: '1',
    });
    const popup = new URL(
      (await shop.payments.createOrder({ amount: '1', popup: true, redirectURI: 'http://localhost:3000/' }))
        .url,
    );
    expect(popup.searchParams.get('opener')).toBe('1');
    expect(await shop.payments.order(order.reference)).toEqual(order);
  });

  it('refuses a bad order with a TypeError naming the field', async () => {
    shop = await new Shop(kudos).start();
    for (const [input, field] of [
      [{ amount: '0' }, '"amount"'],
      [{ amount: '-1' }, '"amount"'],
      [{ amount: '1e3' }, '"amount"'],
      [{ amount: 2 }, '"amount"'],
      [{ amount: '1', user: '' }, '"user"'],
      [{ amount: '1', redirectURI: 'javascript:alert(1)' }, '"redirectURI"'],
      [{ amount: '1', popup: true }, '"redirectURI"'],
      [{ amount: '1', expiresInMs: -5 }, '"expiresInMs"'],
      [{ amount: '1', data: { id: 5 } }, '"data"'],
      [{ amount: '1', data: ['a'] }, '"data"'],
      [null, 'takes an object'],
    ] as const) {
      await expect(shop.payments.createOrder(input as never)).rejects.toThrow(TypeError);
      await expect(shop.payments.createOrder(input as never)).rejects.toThrow(field);
    }
    expect(() => kudosPayments({} as never)).toThrow(/"onPaid"/);
    const options = {
      secret: false as const,
      authURL: kudos.authURL,
      baseURL: kudos.baseURL,
      wallet: WALLETS.shop,
      shopUser: 'bobby',
      agent: 'shop-agent',
      onPaid: () => undefined,
    };
    for (const [bad, field] of [
      [{ authURL: 'not a url' }, '"authURL"'],
      [{ shopUser: '' }, '"shopUser"'],
      [{ agent: undefined }, '"agent"'],
      [{ fee: '-1' }, '"fee"'],
      [{ wallet: [] }, '"wallet"'],
      [{ orderTtlMs: 0 }, '"orderTtlMs"'],
      [{ dedupeTtlMs: -1 }, '"dedupeTtlMs"'],
    ] as const) {
      expect(() => kudosPayments({ ...options, ...bad } as never)).toThrow(TypeError);
      expect(() => kudosPayments({ ...options, ...bad } as never)).toThrow(field);
    }
  });

  it('credits the order its payment names once, whichever path brings it: notification, redelivery, reconcile, redrive', async () => {
    shop = await new Shop(kudos).start();
    const { order, url } = await shop.payments.createOrder({ amount: '2', user: 'alice' });
    const tx = payLink(kudos, url, 'alice');
    await kudos.idle();
    expect(shop.paidTimes(order.reference)).toBe(1);
    const [paid] = shop.paid;
    expect(paid).toMatchObject({
      txHash: tx.txHash,
      received: 2_000_000_000n,
      payer: 'alice',
      source: 'webhook',
    });
    expect((await shop.payments.order(order.reference))?.status).toBe('fulfilled');
    // Every other path reaches the same decision and changes nothing.
    const sent = kudos.deliveries.find((d) => d.txHash === tx.txHash && d.txStatus === 'success');
    kudos.resend(sent?.id ?? -1);
    await kudos.idle();
    expect(await shop.payments.reconcileChain({ since: 0 })).toMatchObject({ processed: 0, failed: 0 });
    expect(await shop.payments.redrive()).toEqual({ processed: 0, failed: 0, remaining: 0 });
    expect(
      await shop.payments.check({ reference: order.reference, txHash: tx.txHash.toLowerCase() }),
    ).toMatchObject({
      status: 'paid',
    });
    expect(shop.paidTimes(order.reference)).toBe(1);
    expect(shop.exceptions).toEqual([]);
  });

  for (const lateness of ['lost', 'answered 502'] as const) {
    it(`a late notification (${lateness}): another order's hash on the return page credits Alice's order, never the caller's`, async () => {
      shop = await new Shop(kudos).start();
      const alice = await shop.payments.createOrder({ amount: '2', user: 'alice' });
      const mallory = await shop.payments.createOrder({ amount: '2', user: 'mallory' });
      let gate: Listening | undefined;
      if (lateness === 'lost') kudos.setWebhook('shop-agent', undefined);
      else {
        gate = await listenLocal(
          http.createServer((_req, res) => {
            res.writeHead(502).end();
          }),
        );
        kudos.setWebhook('shop-agent', `${gate.url}?token=${SECRET}`);
      }
      const tx = payLink(kudos, alice.url, 'alice');
      await kudos.idle();
      expect(shop.paid).toEqual([]);
      // Mallory's return page with Alice's hash: redirect (`/paid?state=...&tx_hash=...`) and popup alike.
      const answer = await shop.payments.check({ reference: mallory.order.reference, txHash: tx.txHash });
      expect(answer).toMatchObject({ status: 'not_this_order', reason: 'another_order' });
      expect((await shop.payments.order(mallory.order.reference))?.status).toBe('open');
      // What the attacker's lookup found went to the order it names.
      expect(shop.paid.map((p) => [p.order.reference, p.payer])).toEqual([[alice.order.reference, 'alice']]);
      expect(
        await shop.payments.check({ reference: alice.order.reference, txHash: tx.txHash }),
      ).toMatchObject({
        status: 'paid',
      });
      // Alice's notification, once it comes, is a duplicate: her order stays paid, once.
      await gate?.close();
      shop.connect();
      for (const d of kudos.deliveries.filter((d) => d.txHash === tx.txHash)) kudos.resend(d.id);
      await kudos.idle();
      expect(shop.paidTimes(alice.order.reference)).toBe(1);
      expect(shop.paidTimes(mallory.order.reference)).toBe(0);
    });
  }

  it('the return page answers pending for a transaction not confirmed yet, and an unknown order as such', async () => {
    shop = await new Shop(kudos).start();
    kudos.setWebhook('shop-agent', undefined);
    const { order } = await shop.payments.createOrder({ amount: '1' });
    const unknownHash = 'AB'.repeat(32);
    expect(await shop.payments.check({ reference: order.reference, txHash: unknownHash })).toMatchObject({
      status: 'pending',
    });
    expect(await shop.payments.check({ reference: 'ko'.padEnd(34, '0'), txHash: unknownHash })).toEqual({
      status: 'unknown_order',
    });
    expect(await shop.payments.check({ reference: '../etc', txHash: unknownHash })).toEqual({
      status: 'unknown_order',
    });
    expect(await shop.payments.check({ reference: order.reference, txHash: 'not-a-hash' })).toMatchObject({
      status: 'not_this_order',
    });
    // An order made for a user is unknown to anyone else's return page.
    const alice = await shop.payments.createOrder({ amount: '1', user: 'alice' });
    expect(
      await shop.payments.check({ reference: alice.order.reference, txHash: unknownHash, user: 'mallory' }),
    ).toEqual({
      status: 'unknown_order',
    });
    expect(shop.paid).toEqual([]);
  });

  it('secret: false: a forged copy of a real notification with another state credits the order the memo names, never the forger’s', async () => {
    shop = await new Shop(kudos).start({ secret: false });
    kudos.setWebhook('shop-agent', undefined); // the real notification is late
    const alice = await shop.payments.createOrder({ amount: '2' });
    const mallory = await shop.payments.createOrder({ amount: '2' });
    const tx = payLink(kudos, alice.url, 'alice');
    await kudos.idle();
    const record = await (await fetch(`${kudos.baseURL}/tx/id/${tx.txHash}`)).json();
    const forged = {
      tx: { ...record, fromId: 'mallory', remarks: `order ${mallory.order.reference}` },
      metadata: { kudosPay: { state: mallory.order.reference, remarks: `order ${mallory.order.reference}` } },
    };
    const res = await fetch(shop.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(forged),
    });
    expect(res.status).toBe(200);
    expect(shop.paidTimes(mallory.order.reference)).toBe(0);
    expect(shop.paid.map((p) => [p.order.reference, p.payer])).toEqual([[alice.order.reference, 'alice']]);
    // The real notification is then a duplicate.
    shop.connect(false);
    for (const d of kudos.deliveries.filter((d) => d.txHash === tx.txHash)) kudos.resend(d.id);
    await kudos.idle();
    expect(shop.paid).toHaveLength(1);
  });

  it('a payer who edits the memo or the state to another order: that order only if fully paid (and his to pay), his own never', async () => {
    shop = await new Shop(kudos).start();
    const own = await shop.payments.createOrder({ amount: '1', user: 'mallory' });
    const aliceOrder = await shop.payments.createOrder({ amount: '1', user: 'alice' });
    const anyone = await shop.payments.createOrder({ amount: '3' });
    const reference = (order: { order: { reference: string } }) => order.order.reference;
    // 1. memo edited to Alice's order, state left: the two disagree.
    const memoEdit = payLink(kudos, own.url, 'mallory', (p) =>
      p.set('remarks', `order ${reference(aliceOrder)}`),
    );
    // 2. state edited to Alice's order, memo left.
    const stateEdit = payLink(kudos, own.url, 'mallory', (p) => p.set('state', reference(aliceOrder)));
    // 3. both edited to Alice's order: it names her order, but Mallory is not the user it was made for.
    const both = payLink(kudos, own.url, 'mallory', (p) => {
      p.set('remarks', `order ${reference(aliceOrder)}`);
      p.set('state', reference(aliceOrder));
    });
    // 4. both edited to an order for anyone, at Mallory's price: underpaid.
    const under = payLink(kudos, own.url, 'mallory', (p) => {
      p.set('remarks', `order ${reference(anyone)}`);
      p.set('state', reference(anyone));
    });
    await kudos.idle();
    expect(shop.paid).toEqual([]);
    const reasons = Object.fromEntries(shop.exceptions.map((e) => [e.txHash, e.reason]));
    expect(reasons).toEqual({
      [memoEdit.txHash]: 'order_conflict',
      [stateEdit.txHash]: 'order_conflict',
      [both.txHash]: 'wrong_payer',
      [under.txHash]: 'underpaid',
    });
    // 5. the order for anyone, fully paid through an edited link: credited (the shop got its price).
    const full = payLink(kudos, own.url, 'mallory', (p) => {
      p.set('remarks', `order ${reference(anyone)}`);
      p.set('state', reference(anyone));
      p.set('amount', '3');
    });
    await kudos.idle();
    expect(shop.paid.map((p) => [p.order.reference, p.txHash])).toEqual([[reference(anyone), full.txHash]]);
    for (const order of [own, aliceOrder])
      expect((await shop.payments.order(reference(order)))?.status).toBe('open');
    // The return page agrees with the notification for every one of them.
    for (const tx of [memoEdit, stateEdit, both, under]) {
      expect(await shop.payments.check({ reference: reference(own), txHash: tx.txHash })).toMatchObject({
        status: 'not_this_order',
      });
    }
  });

  it('an underpayment, a double payment, one payment offered for two orders, a wrong payer, an expired order: surfaced, listed until acknowledged', async () => {
    shop = await new Shop(kudos).start();
    const cheap = await shop.payments.createOrder({ amount: '2' });
    const under = payLink(kudos, cheap.url, 'alice', (p) => p.set('amount', '1.999999999'));
    await kudos.idle();
    const first = payLink(kudos, cheap.url, 'alice');
    await kudos.idle();
    const second = payLink(kudos, cheap.url, 'alice');
    const [a, b] = [
      await shop.payments.createOrder({ amount: '1' }),
      await shop.payments.createOrder({ amount: '1' }),
    ];
    const twoOrders = payLink(kudos, a.url, 'alice', (p) =>
      p.set('remarks', `order ${a.order.reference} and order ${b.order.reference}`),
    );
    const forAlice = await shop.payments.createOrder({ amount: '1', user: 'alice' });
    const wrongPayer = payLink(kudos, forAlice.url, 'mallory');
    const expiring = await shop.payments.createOrder({ amount: '1', expiresInMs: 1 });
    // Paid after its expiry by the block's time, which the chain gives to the second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const late = payLink(kudos, expiring.url, 'alice');
    await kudos.idle();
    expect(shop.paid.map((p) => p.txHash)).toEqual([first.txHash]);
    const expected = [
      [under.txHash, 'underpaid', cheap.order.reference],
      [second.txHash, 'already_paid', cheap.order.reference],
      [twoOrders.txHash, 'order_conflict', null],
      [wrongPayer.txHash, 'wrong_payer', forAlice.order.reference],
      [late.txHash, 'order_expired', expiring.order.reference],
    ];
    expect(shop.exceptions.map((e) => [e.txHash, e.reason, e.reference])).toEqual(expected);
    expect(shop.exceptions[0]).toMatchObject({ received: 1_999_999_999n, payer: 'alice', source: 'webhook' });
    const listed = await shop.payments.exceptions();
    expect(listed.map((l) => [l.txHash, l.reason, l.reference])).toEqual(expected);
    expect(await shop.payments.unprocessed()).toEqual([]); // the receiver's list: every notification processed
    for (const order of [a, b]) {
      expect(
        await shop.payments.check({ reference: order.order.reference, txHash: twoOrders.txHash }),
      ).toMatchObject({
        status: 'not_this_order',
      });
    }
    expect(
      await shop.payments.check({ reference: cheap.order.reference, txHash: under.txHash }),
    ).toMatchObject({
      status: 'not_this_order',
      reason: 'underpaid',
    });
    // The health answer counts the exceptions not acknowledged apart, and the oldest one's age.
    const health = await shop.payments.status();
    expect(health).toMatchObject({
      unprocessed: 0,
      oldestUnprocessedMs: null,
      exceptions: expected.length,
      storeOk: true,
      storeError: null,
    });
    expect(health.oldestExceptionMs).toBeGreaterThanOrEqual(0);
    expect(health.lastNotificationAt).toBeGreaterThan(Date.now() - 60_000);
    expect(await shop.payments.acknowledge(under.txHash)).toBe(true);
    expect((await shop.payments.status()).exceptions).toBe(expected.length - 1);
    expect(await shop.payments.acknowledge(first.txHash)).toBe(false); // credited: nothing to acknowledge
    expect(await shop.payments.acknowledge('00'.repeat(32))).toBe(false);
    expect((await shop.payments.exceptions()).map((l) => l.txHash)).toEqual(
      expected.slice(1).map(([hash]) => hash),
    );
    // Redelivered, an exception is not told again.
    for (const d of kudos.deliveries.filter((d) => d.txHash === second.txHash)) kudos.resend(d.id);
    await kudos.idle();
    expect(shop.exceptions).toHaveLength(expected.length);
  });

  it('onPaid failing after the sender stopped retrying: kept, listed, and told once by redrive()', async () => {
    shop = await new Shop(kudos).start();
    shop.failPaid = true;
    const { order, url } = await shop.payments.createOrder({ amount: '1' });
    const tx = payLink(kudos, url, 'alice');
    await kudos.idle();
    const sent = kudos.deliveries.filter((d) => d.txHash === tx.txHash && d.txStatus === 'success');
    expect(sent.map((d) => d.responseStatus)).toEqual([500, 500, 500]);
    expect((await shop.payments.order(order.reference))?.status).toBe('paid'); // credited, app not told yet
    const [kept] = await shop.payments.unprocessed();
    expect(kept).toMatchObject({ txHash: tx.txHash, attempts: 3 });
    shop.failPaid = false;
    expect(await shop.payments.redrive()).toEqual({ processed: 1, failed: 0, remaining: 0 });
    expect(shop.paidTimes(order.reference)).toBe(1);
    expect((await shop.payments.order(order.reference))?.status).toBe('fulfilled');
    expect(await shop.payments.redrive()).toEqual({ processed: 0, failed: 0, remaining: 0 });
    expect(shop.paidTimes(order.reference)).toBe(1);
  });

  it('another denomination is never money: ibc/FAKE and NANOKUDOS backed by a real transfer to the shop', async () => {
    // A chain whose transaction really transfers the worthless denomination to the shop's wallet,
    // with a memo that names the order.
    const wallet = kudos.walletOf('bobby');
    const payer = kudos.walletOf('alice');
    let memo = '';
    let denom = '';
    const chain = await listenLocal(
      chainServer(() => ({
        memo,
        messages: [msgSend(payer, wallet, { denom, amount: '2000000000' })],
        height: '7',
      })),
    );
    try {
      shop = await new Shop(kudos).start({ restURL: chain.url });
      const { order } = await shop.payments.createOrder({ amount: '2' });
      for (const [i, coin] of ['ibc/FAKE', 'NANOKUDOS'].entries()) {
        memo = `order ${order.reference}`;
        denom = coin;
        const body = {
          tx: {
            txHash: String(i + 1).repeat(64),
            status: 'success',
            from: payer,
            fromId: 'alice',
            to: wallet,
            toId: 'bobby',
            remarks: memo,
            amount: { amount: '2000000000', denom: coin },
          },
          metadata: { kudosPay: { state: order.reference } },
        };
        const res = await fetch(`${shop.server.url}?token=${SECRET}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
      }
      expect(shop.paid).toEqual([]);
      expect(shop.exceptions).toEqual([]);
      expect((await shop.payments.order(order.reference))?.status).toBe('open');
    } finally {
      await chain.close();
    }
  });
});

describeSqlite('kudosPayments() on SQLite: a crash between the payment and onPaid loses nothing', () => {
  let kudos: KudosEmulator;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-payments-'));
    kudos = await startKudosEmulator({
      users: USERS,
      paymentDelayMs: 5,
      webhook: { attempts: 2, retryDelayMs: 20 },
    });
  });
  afterAll(async () => {
    await kudos?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a new process on the same files finds the order paid and tells the app once', async () => {
    const path = join(dir, 'shop.db');
    const open = () => {
      const store = new SqliteDedupeStore({ path });
      return { store, orders: store.orderStore() };
    };
    const before = open();
    const crashed = await new Shop(kudos).start({ ...before });
    crashed.failPaid = true; // the process "dies" in onPaid, every time
    const { order, url } = await crashed.payments.createOrder({ amount: '1', user: 'alice' });
    const tx = payLink(kudos, url, 'alice');
    await kudos.idle();
    await crashed.server.close();
    before.store.close();
    before.orders.close();
    const after = open();
    try {
      const restarted = await new Shop(kudos).start({ ...after });
      expect((await restarted.payments.order(order.reference))?.status).toBe('paid');
      expect((await restarted.payments.unprocessed()).map((l) => l.txHash)).toEqual([tx.txHash]);
      expect(await restarted.payments.redrive()).toMatchObject({ processed: 1, remaining: 0 });
      expect(restarted.paid.map((p) => [p.order.reference, p.txHash])).toEqual([
        [order.reference, tx.txHash],
      ]);
      expect(await restarted.payments.check({ reference: order.reference, txHash: tx.txHash })).toMatchObject(
        {
          status: 'paid',
        },
      );
      await restarted.server.close();
    } finally {
      after.store.close();
      after.orders.close();
    }
  });
});
