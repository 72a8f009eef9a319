import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chainServer, msgSend, WALLETS } from '../../../../test/helpers/chain-answer.mjs';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { startWebhookApp, type WebhookApp } from '../../../../test/helpers/webhook-app.js';
import { cosmosConfirmer, type KudosNotification } from '../../src/index.js';

const SECRET = 'shop-agent-secret-0123456789';

describe('confirmation against the emulator’s chain lookup (no mocks)', () => {
  let kudos: KudosEmulator;
  let app: WebhookApp;
  const received: KudosNotification[] = [];

  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: [...PAYMENT_USERS, { id: 'mallory', password: 'pw' }, { id: 'mallory-alt', password: 'pw' }],
      paymentDelayMs: 10,
      webhook: { attempts: 3, retryDelayMs: 30 },
    });
    app = await startWebhookApp('express5', {
      secret: SECRET,
      confirm: cosmosConfirmer({ baseURL: kudos.baseURL, wallet: kudos.walletOf('bobby') }),
      onNotification: (n) => {
        received.push(n);
      },
    });
    kudos.setWebhook('shop-agent', `${app.url}?token=${SECRET}`);
  });
  afterEach(() => {
    received.length = 0;
    kudos.webhookMode.pendingFirst = false;
  });
  afterAll(async () => {
    await app.close();
    await kudos.close();
  });

  const nano = (tokens: number) => BigInt(Math.round(tokens * 1e9));
  const shopConfirmer = (receiver: string | string[] = kudos.walletOf('bobby')) =>
    cosmosConfirmer({ baseURL: kudos.baseURL, wallet: receiver });
  const byHash = (hash: string) => received.find((n) => n.tx.txHash === hash && n.tx.status === 'success');

  it('presents a real payment to the shop as confirmed and paid, with what the shop received', async () => {
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '3', via: 'shop-agent' });
    await kudos.idle();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      confirmed: true,
      paid: true,
      received: nano(3),
      tx: { txHash: tx.txHash, status: 'success' },
    });
  });

  it('does not present pending or failed payments as paid', async () => {
    kudos.webhookMode.pendingFirst = true;
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', outcome: 'fail' });
    await kudos.idle();
    expect(received.map((n) => [n.tx.status, n.confirmed, n.paid, n.received, n.confirmationReason])).toEqual(
      [
        ['pending', false, false, 0n, 'status is pending'],
        ['fail', false, false, 0n, 'status is fail'],
      ],
    );
  });

  // The attack: a payer edits the shop's widget link to pay his own second account through the shop's
  // agent. The service notifies the shop (the payment went through its agent) of a real, successful
  // transaction; a confirmer that took the notification's own receiver would call it paid.
  it('an edited widget link that pays the payer’s second account through the shop’s agent is not paid', async () => {
    const tx = kudos.pay({
      from: 'mallory',
      to: 'mallory-alt',
      amount: '1000',
      via: 'shop-agent',
      state: 'order-4711',
    });
    await kudos.idle();
    const n = byHash(tx.txHash);
    expect(n?.metadata.state).toBe('order-4711');
    expect([n?.confirmed, n?.paid, n?.received]).toEqual([false, false, 0n]);
    expect(n?.confirmationReason).toBe(
      `the transaction pays none of the shop's wallets (it paid ${kudos.walletOf('mallory-alt', 'kudos')})`,
    );
    // The same payment with a fee to the shop's agent: the agent's cut is not the shop's receiver either.
    const withFee = kudos.pay({
      from: 'mallory',
      to: 'mallory-alt',
      amount: '1000',
      via: 'shop-agent',
      fee: '1',
    });
    await kudos.idle();
    expect(byHash(withFee.txHash)).toMatchObject({ paid: false, received: 0n });
  });

  it('refuses to confirm a forged notification that reuses a real hash with another amount', async () => {
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent' });
    await kudos.idle();
    const real = byHash(tx.txHash);
    if (!real) throw new Error('no notification');
    const confirm = shopConfirmer();
    const more = { amount: '2000000000000', value: 2000000000000n, denom: 'nanokudos' };
    const forged: KudosNotification = { ...real, tx: { ...real.tx, amount: more, amounts: [more] } };
    expect(await confirm(forged)).toEqual({
      confirmed: false,
      reason: 'the transfers on chain do not add up to the notified amount',
      contradicted: true, // what was sent is not what happened: it decides nothing
      memo: 'kudos pay via shop-agent',
      blockTime: expect.any(Number), // the block's time, when it was paid
    });
    expect(await confirm(real)).toEqual({
      confirmed: true,
      received: nano(2),
      memo: 'kudos pay via shop-agent',
      blockTime: Math.floor(tx.completeTs / 1000) * 1000, // the chain gives it to the second
    });
    // Another shop's confirmer: a real payment, not to it.
    expect(await shopConfirmer(kudos.walletOf('alice'))(real)).toMatchObject({
      confirmed: false,
      received: 0n,
    });
  });

  it('counts only the shop’s part of a MsgMultiSend: not the agent’s fee, not another receiver’s part', async () => {
    const withFee = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '1' });
    const several = kudos.pay({
      from: 'alice',
      to: ['bobby', 'shop-agent'],
      amount: ['1.5', '0.5'],
      via: 'shop-agent',
    });
    await kudos.idle();
    const fee = byHash(withFee.txHash);
    const multi = byHash(several.txHash);
    if (!fee || !multi) throw new Error('no notification');
    expect([fee.paid, fee.received, multi.paid, multi.received]).toEqual([true, nano(2), true, nano(1.5)]);
    // Both wallets are the shop's: both parts count.
    const both = shopConfirmer([kudos.walletOf('bobby'), kudos.walletOf('shop-agent')]);
    const memo = 'kudos pay via shop-agent'; // the chain's memo, given back with the verdict
    const blockTime = expect.any(Number);
    expect(await both(multi)).toEqual({ confirmed: true, received: nano(2), memo, blockTime });
    expect(await both(fee)).toEqual({ confirmed: true, received: nano(3), memo, blockTime });
    const claimsMore = { amount: '2000000000', value: 2_000_000_000n, denom: 'nanokudos' };
    const forged: KudosNotification = {
      ...multi,
      tx: {
        ...multi.tx,
        amounts: [claimsMore, multi.tx.amounts?.[1] ?? claimsMore],
        amount: { ...claimsMore, amount: '2500000000', value: 2_500_000_000n },
      },
    };
    expect(await shopConfirmer()(forged)).toMatchObject({ confirmed: false });
  });

  it('answers 503 for a success the chain does not know, so the sender retries', async () => {
    const confirm = shopConfirmer();
    const sample =
      received[0] ??
      (await (async () => {
        kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
        await kudos.idle();
        return received[0] as KudosNotification;
      })());
    const unknown = { ...sample, tx: { ...sample.tx, txHash: 'B'.repeat(64) } };
    await expect(confirm(unknown)).rejects.toMatchObject({ code: 'confirmation_unavailable', status: 503 });
    const down = cosmosConfirmer({ restURL: 'http://127.0.0.1:9', wallet: WALLETS.shop, timeoutMs: 500 });
    await expect(down(sample)).rejects.toMatchObject({ code: 'confirmation_unavailable' });
  });

  it('reads a chain answer only up to maxResponseBytes (default 4 MiB): a huge one is given up, retried later', async () => {
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const sample = received[0] as KudosNotification;
    let sent = 0;
    // A chain node (or whoever answers in its place) that streams an endless JSON string.
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"tx_response":"');
      const chunk = 'A'.repeat(64 * 1024);
      const pump = () => {
        while (sent < 200 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => res.off('drain', pump));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const restURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const small = cosmosConfirmer({ restURL, wallet: WALLETS.shop, maxResponseBytes: 100_000 });
      await expect(small(sample)).rejects.toMatchObject({
        code: 'confirmation_unavailable',
        message: expect.stringContaining('more than 100000 bytes'),
      });
      sent = 0;
      await expect(cosmosConfirmer({ restURL, wallet: WALLETS.shop })(sample)).rejects.toMatchObject({
        message: expect.stringContaining(`more than ${4 * 1024 * 1024} bytes`),
      });
      expect(sent).toBeLessThan(50 * 1024 * 1024); // given up long before the 200 MB
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('counts only nanokudos (or the denom option): another denomination is not paid, and never adds to received', async () => {
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', remarks: 'order 7' });
    await kudos.idle();
    const sample = received[0] as KudosNotification;
    const shop = kudos.walletOf('bobby');
    let coins: Array<{ denom: string; amount: string }> = [];
    // A chain whose transfer to the shop carries the coins the test sets.
    const chain = chainServer(() => ({
      memo: 'order 7',
      messages: [
        {
          '@type': '/cosmos.bank.v1beta1.MsgMultiSend',
          inputs: [{ address: sample.tx.from, coins }],
          outputs: [{ address: shop, coins }],
        },
      ],
      height: '3',
    }));
    await new Promise<void>((resolve) => chain.listen(0, '127.0.0.1', resolve));
    const restURL = `http://127.0.0.1:${(chain.address() as AddressInfo).port}`;
    const withDenom = (denom: string, value: bigint): KudosNotification => ({
      ...sample,
      tx: { ...sample.tx, amount: { amount: String(value), value, denom } },
    });
    try {
      const confirm = cosmosConfirmer({ restURL, wallet: shop });
      // One nanokudos coin beside 5 tokens of a worthless voucher: only the nanokudos count.
      coins = [
        { denom: 'nanokudos', amount: '1000000000' },
        { denom: 'ibc/FAKE', amount: '5000000000' },
      ];
      expect(await confirm(withDenom('nanokudos', nano(1)))).toEqual({
        confirmed: true,
        received: nano(1),
        memo: 'order 7',
      });
      for (const denom of ['ibc/FAKE', 'NANOKUDOS', 'kudos']) {
        coins = [{ denom, amount: '2000000000' }];
        // Real coins of another denomination, as the chain shows them: borne out, and never paid.
        expect(await confirm(withDenom(denom, nano(2)))).toEqual({
          confirmed: false,
          reason: `the amount is in "${denom}", not "nanokudos"`,
          memo: 'order 7',
        });
      }
      // A notification in other letters than the chain's own coins: contradicted, not merely unpaid.
      coins = [{ denom: 'nanokudos', amount: '2000000000' }];
      expect(await confirm(withDenom('NANOKUDOS', nano(2)))).toEqual({
        confirmed: false,
        reason: 'the transfers on chain do not add up to the notified amount',
        contradicted: true,
        memo: 'order 7',
      });
      // A test chain's denomination, named by the option.
      coins = [{ denom: 'utest', amount: '2000000000' }];
      const testChain = cosmosConfirmer({ restURL, wallet: shop, denom: 'utest' });
      expect(await testChain(withDenom('utest', nano(2)))).toMatchObject({
        confirmed: true,
        received: nano(2),
      });
      expect(await testChain(withDenom('nanokudos', nano(2)))).toMatchObject({ confirmed: false });
      expect(() => cosmosConfirmer({ restURL, wallet: shop, denom: '' })).toThrow('"denom"');
    } finally {
      chain.closeAllConnections();
      chain.close();
    }
  });

  // The chain takes both spellings of an account (docs/kudos-service.md#wallet-addresses): a payer
  // who signed as kudos1… is the notification's cosmos1… payer, and the shop's receiver matches either.
  it('compares the payer and the receivers as accounts: either spelling on either side', async () => {
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', remarks: 'order 8' });
    await kudos.idle();
    const sample = received.at(-1) as KudosNotification;
    const [payerLegacy, payerMain] = [kudos.walletOf('alice'), kudos.walletOf('alice', 'kudos')];
    const [shopLegacy, shopMain] = [kudos.walletOf('bobby'), kudos.walletOf('bobby', 'kudos')];
    let chainFrom = payerMain;
    const chainTo = shopLegacy;
    const chain = chainServer(() => ({
      memo: 'order 8',
      messages: [msgSend(chainFrom, chainTo, { denom: 'nanokudos', amount: '1000000000' })],
    }));
    await new Promise<void>((resolve) => chain.listen(0, '127.0.0.1', resolve));
    const restURL = `http://127.0.0.1:${(chain.address() as AddressInfo).port}`;
    try {
      const notified = (from: string, to: string): KudosNotification => ({
        ...sample,
        tx: { ...sample.tx, from, to: [to] },
      });
      for (const receiver of [shopLegacy, shopMain]) {
        const confirm = cosmosConfirmer({ restURL, wallet: receiver });
        for (const [from, to] of [
          [payerLegacy, shopMain],
          [payerMain, shopLegacy],
        ] as const) {
          expect(await confirm(notified(from, to))).toMatchObject({ confirmed: true, received: nano(1) });
        }
      }
      // Another account paid: not the notification's payer, not confirmed.
      chainFrom = kudos.walletOf('bobby');
      expect(
        await cosmosConfirmer({ restURL, wallet: shopMain })(notified(payerLegacy, shopMain)),
      ).toMatchObject({
        confirmed: false,
      });
    } finally {
      chain.closeAllConnections();
      chain.close();
    }
  });

  it('checks its options: the shop’s receiver is required', () => {
    const base = 'http://127.0.0.1:1/api';
    expect(() => cosmosConfirmer({ restURL: 'not a url', wallet: WALLETS.shop })).toThrow('"restURL"');
    for (const receiver of [undefined, '', ' ', [], [''], [5]]) {
      expect(() => cosmosConfirmer({ baseURL: base, wallet: receiver } as never)).toThrow(TypeError);
      expect(() => cosmosConfirmer({ baseURL: base, wallet: receiver } as never)).toThrow('"wallet"');
    }
    expect(() => cosmosConfirmer({ baseURL: base, wallet: WALLETS.shop, maxResponseBytes: 0 })).toThrow(
      '"maxResponseBytes"',
    );
  });
});
