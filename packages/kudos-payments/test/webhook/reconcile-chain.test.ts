import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';
import { PaymentsShop } from '../../../../test/helpers/payments-shop.js';
import { SHOP_CLIENT } from '../../../../test/helpers/shop-client.js';
import {
  cosmosConfirmer,
  type KudosNotification,
  type KudosPaymentsOptions,
  type KudosRefusal,
  kudosReceiver,
} from '../../src/index.js';

// The way back that needs only the chain (docs/payments.md#the-way-back): reconcileChain() reads the
// chain's transfers to the shop's wallet and decides each as a notification would, with the
// emulator's real sender over real HTTP. The service's history never lists a payment with an agent
// fee under the shop (sixth reading), so only the chain can bring such a payment back.

/** The widget parameters of an order's link, as a payer's `pay()` takes them. */
function linkParams(url: string) {
  const params = new URL(url).searchParams;
  return { remarks: params.get('remarks') ?? '', state: params.get('state') ?? '' };
}

/** One emulator and one shop for each test (the chain's search sees every transfer of the emulator). */
function freshShop() {
  const f = { kudos: undefined as unknown as KudosEmulator, shop: undefined as PaymentsShop | undefined };
  beforeEach(async () => {
    f.kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      clients: [{ ...SHOP_CLIENT, defaultScopes: ['profile', 'read'] }],
      paymentDelayMs: 5,
      webhook: { attempts: 3, retryDelayMs: 20, timeoutMs: 2000 },
    });
  });
  afterEach(async () => {
    await f.kudos.idle();
    await f.shop?.server.close();
    f.shop = undefined;
    await f.kudos.close();
  });
  return f;
}

describe('reconcileChain(): a payment no notification brought, found on the chain alone', () => {
  const f = freshShop();

  it('credits a fee-bearing order whose metadata was never posted once; a second run credits nothing', async () => {
    const shop = await new PaymentsShop(f.kudos).start({ fee: '0.5' });
    f.shop = shop;
    const { order, url } = await shop.payments.createOrder({ amount: '2', memo: 'a mug' });
    const before = f.kudos.deliveries.length;
    const tx = f.kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
      fee: '0.5',
      ...linkParams(url),
      metadataPosted: false,
    });
    await f.kudos.idle();
    expect(tx.status).toBe('success');
    expect(f.kudos.deliveries.length).toBe(before); // no notification
    expect((await shop.payments.order(order.reference))?.status).toBe('open');
    // The chain does.
    // Two requests: one page of each spelling of the shop's wallet; the confirmation reads the page.
    expect(await shop.payments.reconcileChain()).toEqual({
      seen: 1,
      processed: 1,
      duplicates: 0,
      failed: 0,
      stale: 0,
      incomplete: false,
      requests: 2,
    });
    expect(shop.paid.map((p) => [p.order.reference, p.txHash, p.received, p.source])).toEqual([
      [order.reference, tx.txHash, 2_000_000_000n, 'reconcile'],
    ]);
    expect((await shop.payments.order(order.reference))?.status).toBe('fulfilled');
    // The next run reads what is new since: nothing; a window asked for whole reads it again.
    expect(await shop.payments.reconcileChain()).toMatchObject({ seen: 0, processed: 0, requests: 2 });
    expect(await shop.payments.reconcileChain({ since: 0 })).toMatchObject({
      seen: 1,
      processed: 0,
      duplicates: 1,
    });
    expect(shop.paidTimes(order.reference)).toBe(1);
    expect(shop.exceptions).toEqual([]);
  });

  it('credits a payment whose notification the sender gave up on; the late redelivery is a duplicate', async () => {
    const shop = await new PaymentsShop(f.kudos).start({ fee: '0.5' });
    f.shop = shop;
    const { order, url } = await shop.payments.createOrder({ amount: '3' });
    // The shop is down for longer than the sender retries.
    f.kudos.setWebhook(
      'shop-agent',
      'http://127.0.0.1:9/webhooks/kudos?token=payments-test-secret-0123456789',
    );
    const tx = f.kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '3',
      via: 'shop-agent',
      fee: '0.5',
      ...linkParams(url),
    });
    await f.kudos.idle();
    const given = f.kudos.deliveries.filter((d) => d.txHash === tx.txHash && d.txStatus === 'success');
    expect(given.length).toBeGreaterThan(0);
    expect(given.every((d) => d.responseStatus === undefined || d.responseStatus >= 500)).toBe(true);
    expect(shop.paid).toEqual([]);
    shop.connect();
    expect(await shop.payments.reconcileChain()).toMatchObject({ processed: 1, failed: 0 });
    expect(shop.paidTimes(order.reference)).toBe(1);
    // The notification arrives at last: answered 200 as a duplicate, credited nothing more.
    expect(f.kudos.resend(given[0]?.id as number)).toBe(true);
    await f.kudos.idle();
    expect(f.kudos.deliveries.at(-1)?.responseStatus).toBe(200);
    expect(shop.paidTimes(order.reference)).toBe(1);
    expect((await shop.payments.order(order.reference))?.status).toBe('fulfilled');
  });

  it('credits nothing a notification already credited, and reads no block before `since`', async () => {
    const shop = await new PaymentsShop(f.kudos).start();
    f.shop = shop;
    const first = await shop.payments.createOrder({ amount: '1' });
    f.kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', ...linkParams(first.url) });
    await f.kudos.idle();
    expect(shop.paidTimes(first.order.reference)).toBe(1); // by its notification
    f.kudos.advanceClock(60_000);
    const since = f.kudos.now();
    f.kudos.advanceClock(1000);
    const second = await shop.payments.createOrder({ amount: '1' });
    f.kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '1',
      via: 'shop-agent',
      ...linkParams(second.url),
      metadataPosted: false,
    });
    await f.kudos.idle();
    expect(await shop.payments.reconcileChain({ since })).toMatchObject({ seen: 1, processed: 1 });
    expect(await shop.payments.reconcileChain({ since: 0 })).toMatchObject({
      seen: 2,
      processed: 0,
      duplicates: 2,
    });
    expect([first, second].map(({ order }) => shop.paidTimes(order.reference))).toEqual([1, 1]);
  });

  it('names each payer by the service’s address lookup: an order made for a user is paid by that user only', async () => {
    const shop = await new PaymentsShop(f.kudos).start();
    f.shop = shop;
    const mine = await shop.payments.createOrder({ amount: '1', user: 'alice' });
    const theirs = await shop.payments.createOrder({ amount: '1', user: 'alice' });
    const lost = { via: 'shop-agent', metadataPosted: false } as const;
    f.kudos.pay({ from: 'alice', to: 'bobby', amount: '1', ...lost, ...linkParams(mine.url) });
    f.kudos.pay({ from: 'shop-agent', to: 'bobby', amount: '1', ...lost, ...linkParams(theirs.url) });
    await f.kudos.idle();
    expect(await shop.payments.reconcileChain()).toMatchObject({ seen: 2, processed: 2, failed: 0 });
    expect(shop.paid.map((p) => [p.order.reference, p.payer])).toEqual([[mine.order.reference, 'alice']]);
    expect(shop.exceptions.map((e) => [e.reason, e.reference, e.payer])).toEqual([
      ['wrong_payer', theirs.order.reference, 'shop-agent'],
    ]);
  });

  it('an underpaying transfer that names an order, and a transfer to someone else, credit nothing', async () => {
    const shop = await new PaymentsShop(f.kudos).start();
    f.shop = shop;
    const { order, url } = await shop.payments.createOrder({ amount: '5' });
    // A payer edits the link: 1 token instead of 5, and another copy of it paid to someone else.
    const edited = { ...linkParams(url), metadataPosted: false };
    f.kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', ...edited });
    f.kudos.pay({ from: 'alice', to: 'shop-agent', amount: '5', ...edited });
    await f.kudos.idle();
    expect(await shop.payments.reconcileChain()).toMatchObject({ seen: 1, processed: 1 });
    expect(shop.paid).toEqual([]);
    expect(shop.exceptions.map((e) => [e.reason, e.reference])).toEqual([['underpaid', order.reference]]);
    expect((await shop.payments.order(order.reference))?.status).toBe('open');
  });
});

describe('reconcileChain() on the low-level receiver, with its wallet addresses', () => {
  let kudos: KudosEmulator | undefined;
  let server: Listening | undefined;
  afterEach(async () => {
    await kudos?.idle();
    await server?.close();
    await kudos?.close();
    kudos = server = undefined;
  });

  it('processes each transfer to its wallet once, in either spelling of its address', async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5 });
    const seen: KudosNotification[] = [];
    const hook = kudosReceiver({
      secret: false,
      confirm: cosmosConfirmer({ baseURL: kudos.baseURL, wallet: kudos.walletOf('bobby') }),
      onNotification: (n) => {
        seen.push(n);
      },
    });
    const paid = [
      kudos.pay({ from: 'alice', to: 'bobby', amount: '1' }),
      kudos.pay({ from: 'alice', to: 'bobby,shop-agent', amount: '2,1' }),
    ];
    kudos.pay({ from: 'alice', to: 'shop-agent', amount: '4' }); // not the receiver's
    await kudos.idle();
    for (const receiver of [kudos.walletOf('bobby', 'kudos'), kudos.walletOf('bobby', 'cosmos')]) {
      seen.length = 0;
      const first = await hook.reconcileChain({ wallet: receiver, baseURL: kudos.baseURL, since: 0 });
      expect(first.seen).toBe(2);
      expect(first.processed + first.duplicates).toBe(2);
    }
    expect(seen).toEqual([]); // the second spelling's run found both done
    const all = await hook.reconcileChain({
      wallet: kudos.walletOf('bobby'),
      baseURL: kudos.baseURL,
      since: 0,
    });
    expect(all).toMatchObject({ seen: 2, processed: 0, duplicates: 2 });
    const { seen: _seen, ...counts } = await hook.reconcileChain({
      wallet: kudos.walletOf('bobby'),
      restURL: kudos.chainURL,
    });
    expect(counts).toMatchObject({ processed: 0, duplicates: 2 });
    expect(paid.every((tx) => tx.status === 'success')).toBe(true);
  });

  it('refuses arguments it cannot use, naming reconcileChain() and the field', async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS });
    const hook = kudosReceiver({ secret: false, onNotification: () => undefined });
    const receiver = kudos.walletOf('bobby');
    await expect(hook.reconcileChain({ wallet: receiver } as never)).rejects.toThrow(
      /reconcileChain\(\) requires "restURL" .* or "baseURL"/,
    );
    await expect(hook.reconcileChain({ baseURL: kudos.baseURL } as never)).rejects.toThrow(
      /reconcileChain\(\) requires "wallet"/,
    );
    await expect(hook.reconcileChain({ wallet: 'cosmos1nope', baseURL: kudos.baseURL })).rejects.toThrow(
      /reconcileChain\(\) option "wallet" must be a wallet address/,
    );
    await expect(
      hook.reconcileChain({ wallet: receiver, baseURL: kudos.baseURL, since: Number.NaN }),
    ).rejects.toThrow(/reconcileChain\(\) option "since" must be a time in epoch milliseconds/);
  });
});

describe('against the service as it is now (the emulator’s 2026 generation): loud, never "nothing found"', () => {
  let kudos: KudosEmulator | undefined;
  let shop: PaymentsShop | undefined;
  afterEach(async () => {
    await kudos?.idle();
    await shop?.server.close();
    await kudos?.close();
    kudos = shop = undefined;
  });

  async function start2026(options: (kudos: KudosEmulator) => Partial<KudosPaymentsOptions> = () => ({})) {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      paymentDelayMs: 5,
      clients: [{ ...SHOP_CLIENT, defaultScopes: ['profile', 'read'] }],
      generation: '2026',
      webhook: { attempts: 3, retryDelayMs: 20, timeoutMs: 2000 },
    });
    shop = await new PaymentsShop(kudos).start(options(kudos));
    return { kudos, shop };
  }

  it('reconcileChain() by baseURL rejects endpoint_gone naming the route and "restURL"', async () => {
    const { shop } = await start2026();
    await expect(shop.payments.reconcileChain()).rejects.toMatchObject({
      code: 'endpoint_gone',
      message: expect.stringMatching(/cosmos\/lcd\/cosmos\/tx\/v1beta1\/txs answered 404 .*"restURL"/),
    });
  });

  it('the confirmer names the missing LCD and restURL; onError is told once; status() says the lookup fails', async () => {
    const { kudos, shop } = await start2026();
    for (let i = 0; i < 3; i++) {
      const { url } = await shop.payments.createOrder({ amount: '1' });
      kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', ...linkParams(url) });
    }
    await kudos.idle();
    const answers = kudos.deliveries.filter((d) => d.txStatus === 'success').map((d) => d.responseStatus);
    expect(answers.length).toBeGreaterThanOrEqual(3);
    expect(answers.every((status) => status === 503)).toBe(true);
    const gone = shop.errors.filter((e: KudosRefusal) => e.code === 'endpoint_gone');
    expect(gone).toHaveLength(1);
    expect(gone[0]?.message).toContain(
      `No chain REST (LCD) interface answers at ${kudos.baseURL}/cosmos/lcd`,
    );
    expect(gone[0]?.message).toContain('"restURL"');
    expect(shop.errors.some((e) => /not found on the chain yet/.test(e.message))).toBe(false);
    const status = await shop.payments.status();
    expect(status).toMatchObject({ lookupOk: false, storeOk: true });
    expect(status.lookupError).toContain('endpoint_gone');
    expect(status.lookupError).toContain(`${kudos.baseURL}/cosmos/lcd`);
    // Kept for redrive(), not lost.
    expect(await shop.payments.unprocessed()).toHaveLength(3);
  });

  it('with restURL at a chain node, the money path needs only the chain: notifications and reconcileChain() credit', async () => {
    const { kudos, shop: other } = await start2026((kudos) => ({ restURL: kudos.chainURL }));
    const { order, url } = await other.payments.createOrder({ amount: '2' });
    kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0.5', ...linkParams(url) });
    const lost = await other.payments.createOrder({ amount: '1' });
    kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '1',
      via: 'shop-agent',
      ...linkParams(lost.url),
      metadataPosted: false,
    });
    await kudos.idle();
    expect(await other.payments.reconcileChain()).toMatchObject({ seen: 2, failed: 0 });
    expect((await other.payments.order(order.reference))?.status).toBe('fulfilled');
    expect((await other.payments.order(lost.order.reference))?.status).toBe('fulfilled');
    expect((await other.payments.status()).lookupOk).toBe(true);
  });
  it('with restURL at a chain node, check() credits a payment no notification brought (the chain alone)', async () => {
    const { kudos: k, shop: s } = await start2026((k) => ({ restURL: k.chainURL }));
    const { order, url } = await s.payments.createOrder({ amount: '2', user: 'alice' });
    const tx = k.pay({
      from: 'alice',
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
      fee: '0.5',
      ...linkParams(url),
      metadataPosted: false,
    });
    await k.idle();
    // The service's record lookup is gone (Express's 404): the page reads the chain, names the payer.
    expect((await fetch(`${k.baseURL}/tx/id/${tx.txHash}`)).status).toBe(404);
    const check = await s.payments.check({ reference: order.reference, txHash: tx.txHash, user: 'alice' });
    expect(check).toMatchObject({ status: 'paid' });
    expect(s.paid.map((p) => [p.order.reference, p.payer, p.source])).toEqual([
      [order.reference, 'alice', 'reconcile'],
    ]);
    expect(await s.payments.reconcileChain()).toMatchObject({ processed: 0, duplicates: 1 });
  });
});

describe('the confirmer tells a gone LCD from a transaction not in a block yet', () => {
  it('a JSON 404 of the chain is "not on the chain yet" (confirmation_unavailable); an HTML 404 is endpoint_gone', async () => {
    let answer = { type: 'application/json', body: '{"code":5,"message":"tx not found","details":[]}' };
    const chain = await listenLocal(
      http.createServer((_req, res) => {
        res.writeHead(404, { 'content-type': answer.type });
        res.end(answer.body);
      }),
    );
    try {
      const receiver = 'cosmos1prtuq05nhujtkqssvre0rjtwhg2crsnupw3ez2';
      const confirm = cosmosConfirmer({ restURL: chain.url, wallet: receiver });
      const notification = {
        tx: { status: 'success', txHash: 'A'.repeat(64), amount: { denom: 'nanokudos', value: 1n } },
      } as unknown as KudosNotification;
      await expect(confirm(notification)).rejects.toMatchObject({
        code: 'confirmation_unavailable',
        status: 503,
        message: 'transaction not found on the chain yet',
      });
      answer = { type: 'text/html; charset=utf-8', body: '<pre>Cannot GET /cosmos/tx</pre>' };
      await expect(confirm(notification)).rejects.toMatchObject({
        name: 'KudosNotificationError',
        code: 'endpoint_gone',
        status: 503,
        message: expect.stringContaining(`No chain REST (LCD) interface answers at ${chain.url}`),
        cause: expect.objectContaining({ code: 'endpoint_gone' }),
      });
    } finally {
      await chain.close();
    }
  });
});
