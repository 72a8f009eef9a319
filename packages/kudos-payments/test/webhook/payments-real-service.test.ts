import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WALLETS } from '../../../../test/helpers/chain-answer.mjs';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { payLink } from '../../../../test/helpers/pay-link.js';
import { PaymentsShop, paymentsFixture, SHOP_SECRET } from '../../../../test/helpers/payments-shop.js';
import { SHOP_CLIENT } from '../../../../test/helpers/shop-client.js';
import { checkAddress } from '../../../kudos-core/src/chain/address.js';
import { cosmosConfirmer, type KudosPaymentsOptions, kudosPayments } from '../../src/index.js';

// Payments as the real service makes them (docs/kudos-service.md#wallet-addresses, #memo,
// #widget-metadata), with the emulator's real sender over real HTTP: the widget pays
// the main-prefix spelling of the shop's account, money that reached the shop's user but not its
// wallet is surfaced, and a payment whose metadata the browser never posted is found by reconcile.

/** The payment tests' shop; its webhook is called without the secret when it runs with `secret: false`. */
class Shop extends PaymentsShop {
  override async start(options: Partial<KudosPaymentsOptions> = {}): Promise<this> {
    await super.start(options);
    if (options.secret === false) this.connect(false);
    return this;
  }
}

/** Starts an emulator for one test, paying addresses with `prefix`. */
function emulator(prefix?: 'kudos' | 'cosmos') {
  return startKudosEmulator({
    users: PAYMENT_USERS,
    paymentDelayMs: 5,
    webhook: { attempts: 3, retryDelayMs: 20, timeoutMs: 2000 },
    ...(prefix ? { paymentAddressPrefix: prefix } : {}),
  });
}

describe('addresses compared as accounts: either spelling of the shop’s wallet', () => {
  let kudos: KudosEmulator | undefined;
  let shop: Shop | undefined;
  afterEach(async () => {
    await kudos?.idle();
    await shop?.server.close();
    await kudos?.close();
    kudos = undefined;
    shop = undefined;
  });

  it('credits a payment to the main-prefix spelling when the wallet is the legacy one', async () => {
    kudos = await emulator();
    shop = await new Shop(kudos).start({ wallet: kudos.walletOf('bobby', 'cosmos') });
    const { order, url } = await shop.payments.createOrder({ amount: '2', memo: 'mug' });
    const tx = payLink(kudos, url, 'alice');
    await kudos.idle();
    // The chain paid kudos1…, the same account as the wallet's cosmos1….
    const lookup = await (
      await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${tx.txHash}`)
    ).json();
    expect(lookup.tx.body.messages[0].to_address).toBe(kudos.walletOf('bobby', 'kudos'));
    expect(shop.paid.map((p) => [p.order.reference, p.received])).toEqual([
      [order.reference, 2_000_000_000n],
    ]);
    expect((await shop.payments.order(order.reference))?.status).toBe('fulfilled');
    expect(shop.exceptions).toEqual([]);
  });

  it('credits a payment to the legacy spelling (an old record) when the wallet is the main-prefix one', async () => {
    kudos = await emulator('cosmos');
    shop = await new Shop(kudos).start({ wallet: kudos.walletOf('bobby', 'kudos') });
    const { order, url } = await shop.payments.createOrder({ amount: '1.5' });
    const tx = payLink(kudos, url, 'alice');
    await kudos.idle();
    const record = await (await fetch(`${kudos.baseURL}/tx/id/${tx.txHash}`)).json();
    expect(record.to).toBe(kudos.walletOf('bobby', 'cosmos'));
    expect(shop.paid.map((p) => p.order.reference)).toEqual([order.reference]);
  });

  it('makes links whose memo the chain takes, whatever the label: CJK, accents, emoji are paid and credited', async () => {
    kudos = await emulator();
    shop = await new Shop(kudos).start();
    for (const memo of ['漢'.repeat(120), 'é'.repeat(150), '😀'.repeat(120)]) {
      const { order, url } = await shop.payments.createOrder({ amount: '1', memo });
      const remarks = new URL(url).searchParams.get('remarks') ?? '';
      expect(Buffer.byteLength(remarks, 'utf8')).toBeLessThanOrEqual(256);
      expect(remarks.endsWith(` ${order.reference}`)).toBe(true);
      // The widget's own checks and the chain's byte limit: paid.
      expect(payLink(kudos, url, 'alice').request.remarks).toBe(remarks);
    }
    await kudos.idle();
    expect(shop.paid).toHaveLength(3);
  });

  it('credits a payment with an agent fee (a MsgMultiSend) to the main-prefix spelling: only the shop’s part', async () => {
    kudos = await emulator();
    shop = await new Shop(kudos).start({ fee: '0.5' });
    const { order, url } = await shop.payments.createOrder({ amount: '3' });
    payLink(kudos, url, 'alice');
    await kudos.idle();
    expect(shop.paid.map((p) => [p.order.reference, p.received])).toEqual([
      [order.reference, 3_000_000_000n],
    ]);
  });

  it('refuses a mistyped, foreign or malformed wallet when the payments API or the confirmer is made', async () => {
    kudos = await emulator();
    const good = kudos.walletOf('bobby');
    const typo = `${good.slice(0, 20)}${good[20] === 'q' ? 'p' : 'q'}${good.slice(21)}`;
    const base = {
      secret: SHOP_SECRET,
      authURL: kudos.authURL,
      baseURL: kudos.baseURL,
      shopUser: 'bobby',
      agent: 'shop-agent',
    };
    const cases: Array<[unknown, RegExp]> = [
      [typo, /"wallet" must be a wallet address .*checksum/],
      [
        'osmo1prtuq05nhujtkqssvre0rjtwhg2crsnu7kkz2y',
        /"wallet" must be a wallet address .*"kudos1" or "cosmos1"/,
      ],
      ['cosmos1shop', /"wallet" must be a wallet address/],
      [
        good.toUpperCase().replace('COSMOS', 'cosmos'),
        /"wallet" must be a wallet address .*upper and lower case/,
      ],
      [[good, typo], /"wallet"\[1\] must be a wallet address .*checksum/],
      [[], /requires "wallet"/],
      [42, /requires "wallet"/],
    ];
    for (const [given, message] of cases) {
      expect(() => kudosPayments({ ...base, wallet: given as string, onPaid: () => undefined })).toThrow(
        TypeError,
      );
      expect(() => kudosPayments({ ...base, wallet: given as string, onPaid: () => undefined })).toThrow(
        message,
      );
      expect(() => cosmosConfirmer({ baseURL: kudos?.baseURL, wallet: given as string })).toThrow(message);
    }
    // Both spellings, upper case (bech32 allows it whole) and several: accepted.
    for (const wallet of [good, kudos.walletOf('bobby', 'kudos'), good.toUpperCase(), [good, WALLETS.shop]]) {
      expect(() => kudosPayments({ ...base, wallet, onPaid: () => undefined })).not.toThrow();
    }
  });
});

describe('money that reached the shop’s user but none of its wallet is surfaced', () => {
  let kudos: KudosEmulator;
  let shop: Shop | undefined;
  beforeAll(async () => {
    kudos = await emulator();
  });
  afterAll(() => kudos?.close());
  afterEach(async () => {
    await kudos.idle();
    await shop?.server.close();
    shop = undefined;
  });

  it('is a not_to_wallet exception with the addresses paid: told once, listed, counted, acknowledged', async () => {
    // The shop gave a wallet that is not bobby's (an old wallet, a copy-paste from elsewhere).
    shop = await new Shop(kudos).start({ wallet: WALLETS.other });
    const { order, url } = await shop.payments.createOrder({ amount: '2' });
    const tx = payLink(kudos, url, 'alice');
    await kudos.idle();
    const paidTo = [kudos.walletOf('bobby', 'kudos')];
    expect(shop.paid).toEqual([]);
    expect(shop.exceptions).toEqual([
      expect.objectContaining({
        reason: 'not_to_wallet',
        txHash: tx.txHash,
        reference: order.reference,
        paidTo,
      }),
    ]);
    expect(shop.errors.map((e) => [e.code, e.message])).toEqual([
      ['not_to_wallet', expect.stringContaining(paidTo[0] as string)],
    ]);
    expect((await shop.payments.order(order.reference))?.status).toBe('open');
    const listed = await shop.payments.exceptions();
    expect(listed).toEqual([expect.objectContaining({ reason: 'not_to_wallet', paidTo })]);
    expect(await shop.payments.unprocessed()).toEqual([]);
    expect(await shop.payments.status()).toMatchObject({ exceptions: 1, unprocessed: 0 });
    // A redelivery tells no one again.
    const delivery = kudos.deliveries.find((d) => d.txHash === tx.txHash);
    expect(kudos.resend(delivery?.id ?? 0)).toBe(true);
    await kudos.idle();
    expect([shop.exceptions.length, shop.errors.length]).toEqual([1, 1]);
    expect(await shop.payments.acknowledge(tx.txHash)).toBe(true);
    expect(await shop.payments.exceptions()).toEqual([]);
    expect((await shop.payments.status()).exceptions).toBe(0);
  });

  it('makes no exception from an unauthenticated notification (secret: false) nor for another user’s payment', async () => {
    shop = await new Shop(kudos).start({ wallet: WALLETS.other, secret: false });
    const { url } = await shop.payments.createOrder({ amount: '2' });
    payLink(kudos, url, 'alice');
    await kudos.idle();
    expect([shop.exceptions, shop.errors, await shop.payments.exceptions()]).toEqual([[], [], []]);
    await shop.server.close();
    // Authenticated, but a payment to alice through the shop's agent: not the shop's user, not its money.
    shop = await new Shop(kudos).start({ wallet: WALLETS.other });
    kudos.pay({ from: 'bobby', to: 'alice', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect([shop.exceptions, shop.errors, await shop.payments.exceptions()]).toEqual([[], [], []]);
  });
});

describe('a payment whose metadata the payer’s browser never posted', () => {
  const f = paymentsFixture({ clients: [{ ...SHOP_CLIENT, defaultScopes: ['profile', 'read'] }] });

  it('is never notified, and is credited by reconcile of the shop’s own history (the memo names the order)', async () => {
    const shop = await new Shop(f.kudos).start();
    f.shop = shop;
    const { order, url } = await shop.payments.createOrder({ amount: '2', memo: 'a mug' });
    const before = f.kudos.deliveries.length;
    const params = new URL(url).searchParams;
    const tx = f.kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
      remarks: params.get('remarks') ?? '',
      state: params.get('state') ?? '',
      metadataPosted: false,
    });
    await f.kudos.idle();
    // Money moved and is recorded; nothing was sent.
    expect(tx.status).toBe('success');
    expect(f.kudos.deliveries.length).toBe(before);
    expect((await fetch(`${f.kudos.baseURL}/tx/id/${tx.txHash}`)).status).toBe(200);
    expect(shop.paid).toEqual([]);
    // The chain brings it.
    const result = await shop.payments.reconcileChain();
    expect(result).toMatchObject({ failed: 0, incomplete: false });
    expect(shop.paid.map((p) => [p.order.reference, p.source])).toEqual([[order.reference, 'reconcile']]);
    expect((await shop.payments.order(order.reference))?.status).toBe('fulfilled');
    // A second pass over the whole window finds it done.
    expect(await shop.payments.reconcileChain({ since: 0 })).toMatchObject({ processed: 0, failed: 0 });
    expect(shop.paid).toHaveLength(1);
  });
});

describe('the emulator’s wallets are real bech32 addresses', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await emulator();
  });
  afterAll(() => kudos?.close());

  it('decodes every wallet, in both spellings, to one account per user, stable across emulators', async () => {
    const again = await emulator();
    try {
      const accounts = new Set<string>();
      for (const id of ['alice', 'bobby', 'shop-agent']) {
        const legacy = checkAddress(kudos.walletOf(id));
        const main = checkAddress(kudos.walletOf(id, 'kudos'));
        expect(legacy).toMatchObject({ ok: true, prefix: 'cosmos' });
        expect(main).toMatchObject({ ok: true, prefix: 'kudos' });
        if (!legacy.ok || !main.ok) throw new Error('not decoded');
        expect(main.account).toBe(legacy.account);
        expect(again.walletOf(id)).toBe(kudos.walletOf(id));
        accounts.add(legacy.account);
      }
      expect(accounts.size).toBe(3);
    } finally {
      await again.close();
    }
  });
});
