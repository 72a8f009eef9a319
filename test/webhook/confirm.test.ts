import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/testing/index.js';
import { cosmosConfirmer, type KudosNotification } from '../../src/webhook/index.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { startWebhookApp, type WebhookApp } from '../helpers/webhook-app.js';

const SECRET = 'shop-agent-secret-0123456789';

describe('confirmation against the emulator’s chain lookup (no mocks)', () => {
  let kudos: KudosEmulator;
  let app: WebhookApp;
  const received: KudosNotification[] = [];

  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      paymentDelayMs: 10,
      webhook: { attempts: 3, retryDelayMs: 30 },
    });
    app = await startWebhookApp('express5', {
      secret: SECRET,
      confirm: cosmosConfirmer({ baseURL: kudos.baseURL }),
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

  it('presents a real success as confirmed and paid', async () => {
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '3', via: 'shop-agent' });
    await kudos.idle();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      confirmed: true,
      paid: true,
      tx: { txHash: tx.txHash, status: 'success' },
    });
  });

  it('does not present pending or failed payments as paid', async () => {
    kudos.webhookMode.pendingFirst = true;
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', outcome: 'fail' });
    await kudos.idle();
    expect(received.map((n) => [n.tx.status, n.confirmed, n.paid, n.confirmationReason])).toEqual([
      ['pending', false, false, 'status is pending'],
      ['fail', false, false, 'status is fail'],
    ]);
  });

  it('refuses to confirm a forged notification that reuses a real hash with another amount or receiver', async () => {
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent' });
    await kudos.idle();
    const real = received[0];
    if (!real) throw new Error('no notification');
    const confirm = cosmosConfirmer({ baseURL: kudos.baseURL });
    const more = { amount: '2000000000000', value: 2000000000000n, denom: 'nanokudos' };
    const forged: KudosNotification = { ...real, tx: { ...real.tx, amount: more, amounts: [more] } };
    expect(await confirm(forged)).toEqual({
      confirmed: false,
      reason: 'the transfers on chain do not add up to the notified amount',
    });
    const inconsistent: KudosNotification = { ...real, tx: { ...real.tx, amount: more } };
    expect(await confirm(inconsistent)).toMatchObject({
      confirmed: false,
      reason: expect.stringContaining('add up'),
    });
    const elsewhere = cosmosConfirmer({ baseURL: kudos.baseURL, receiver: 'cosmos1someoneelse' });
    expect(await elsewhere(real)).toMatchObject({ confirmed: false });
    expect(await confirm({ ...real, tx: { ...real.tx, txHash: tx.txHash } })).toEqual({ confirmed: true });
  });

  it('confirms a MsgMultiSend payment: an agent fee, or several receivers, each paid its own amount', async () => {
    const withFee = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '1' });
    const several = kudos.pay({
      from: 'alice',
      to: ['bobby', 'shop-agent'],
      amount: ['1.5', '0.5'],
      via: 'shop-agent',
    });
    await kudos.idle();
    const byHash = (hash: string) => received.find((n) => n.tx.txHash === hash);
    const fee = byHash(withFee.txHash);
    const multi = byHash(several.txHash);
    if (!fee || !multi) throw new Error('no notification');
    expect([fee.confirmed, fee.paid, multi.confirmed, multi.paid]).toEqual([true, true, true, true]);
    const bobbyWallet = fee.tx.to[0] as string;
    expect(await cosmosConfirmer({ baseURL: kudos.baseURL, receiver: bobbyWallet })(multi)).toEqual({
      confirmed: true,
    });
    const claimsMore = { amount: '2000000000', value: 2_000_000_000n, denom: 'nanokudos' };
    const forged: KudosNotification = {
      ...multi,
      tx: {
        ...multi.tx,
        amounts: [claimsMore, multi.tx.amounts?.[1] ?? claimsMore],
        amount: { ...claimsMore, amount: '2500000000', value: 2_500_000_000n },
      },
    };
    expect(await cosmosConfirmer({ baseURL: kudos.baseURL })(forged)).toMatchObject({ confirmed: false });
    // The same total split otherwise: each receiver must get its own notified amount.
    const half = { amount: '500000000', value: 500_000_000n, denom: 'nanokudos' };
    const oneAndHalf = { amount: '1500000000', value: 1_500_000_000n, denom: 'nanokudos' };
    const swapped: KudosNotification = {
      ...multi,
      tx: {
        ...multi.tx,
        amounts: [half, oneAndHalf],
        outputs: multi.tx.outputs.map((o, i) => ({ ...o, amount: i === 0 ? half : oneAndHalf })),
      },
    };
    expect(await cosmosConfirmer({ baseURL: kudos.baseURL })(swapped)).toEqual({
      confirmed: false,
      reason: 'no bank transfer of the notified amount to the receiver',
    });
  });

  it('answers 503 for a success the chain does not know, so the sender retries', async () => {
    const confirm = cosmosConfirmer({ baseURL: kudos.baseURL });
    const sample =
      received[0] ??
      (await (async () => {
        kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
        await kudos.idle();
        return received[0] as KudosNotification;
      })());
    const unknown = { ...sample, tx: { ...sample.tx, txHash: 'B'.repeat(64) } };
    await expect(confirm(unknown)).rejects.toMatchObject({ code: 'confirmation_unavailable', status: 503 });
    const down = cosmosConfirmer({ restURL: 'http://127.0.0.1:9', timeoutMs: 500 });
    await expect(down(sample)).rejects.toMatchObject({ code: 'confirmation_unavailable' });
  });

  it('checks its options', () => {
    expect(() => cosmosConfirmer({ restURL: 'not a url' })).toThrow('"restURL"');
  });
});
