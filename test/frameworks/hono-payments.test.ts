import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KudosPaidOrder } from '../../packages/kudos-payments/src/index.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { payLink } from '../helpers/pay-link.js';
import { buildPaymentsApp, servePaymentsApp } from './hono/kudos-payments.js';

// docs/frameworks.md's Hono shop as it is: kudosPayments() behind @hono/node-server's serve(), paid
// through the emulator's widget checks and its real sender, the return page answered by check().

const SECRET = 'hono-payments-secret-0123456789';

describe('a Hono shop on kudosPayments(), served by @hono/node-server', () => {
  let kudos: KudosEmulator;
  let shop: { port: number; close: () => void };
  const paid: KudosPaidOrder[] = [];
  beforeAll(async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5 });
    const { app } = buildPaymentsApp({
      secret: SECRET,
      authURL: kudos.authURL,
      baseURL: kudos.baseURL,
      wallet: kudos.walletOf('bobby'),
      shopUser: 'bobby',
      agent: 'shop-agent',
      onPaid: (p) => {
        paid.push(p);
      },
    });
    shop = await servePaymentsApp(app, 0);
    kudos.setWebhook('shop-agent', `http://127.0.0.1:${shop.port}/webhooks/kudos?token=${SECRET}`);
  });
  afterAll(async () => {
    shop?.close();
    await kudos?.close();
  });

  it('an order paid through the widget: onPaid once, the return page says paid, health is fine', async () => {
    const base = `http://127.0.0.1:${shop.port}`;
    const made = await fetch(`${base}/orders`, { method: 'POST', redirect: 'manual' });
    expect(made.status).toBe(303);
    const link = made.headers.get('location') ?? '';
    expect(link.startsWith(`${kudos.authURL}/in/widget/pay?`)).toBe(true);
    const reference = new URL(link).searchParams.get('state') ?? '';
    const { txHash } = payLink(kudos, link, 'alice');
    await kudos.idle();
    expect(paid.map((p) => [p.order.reference, p.txHash, p.received])).toEqual([
      [reference, txHash, 2_000_000_000n],
    ]);
    const back = await fetch(`${base}/paid?state=${reference}&tx_hash=${txHash}`);
    expect(await back.text()).toBe('Thank you: paid.');
    const health = (await (await fetch(`${base}/healthz`)).json()) as {
      storeOk: boolean;
      unprocessed: number;
    };
    expect(health).toMatchObject({ storeOk: true, unprocessed: 0 });
  });

  it('an edited link (a smaller amount) pays nothing: the return page does not say paid', async () => {
    const base = `http://127.0.0.1:${shop.port}`;
    const made = await fetch(`${base}/orders`, { method: 'POST', redirect: 'manual' });
    const link = made.headers.get('location') ?? '';
    const reference = new URL(link).searchParams.get('state') ?? '';
    const before = paid.length;
    const { txHash } = payLink(kudos, link, 'alice', (params) => params.set('amount', '1'));
    await kudos.idle();
    expect(paid).toHaveLength(before);
    const back = await fetch(`${base}/paid?state=${reference}&tx_hash=${txHash}`);
    expect(await back.text()).toBe('Not paid yet (not_this_order).');
  });
});
