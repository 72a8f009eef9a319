import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { formFields, PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';
import { startWebhookSink, type WebhookSink } from '../../../test/helpers/webhook-sink.js';

const SHOP = 'https://shop.example/paid';

describe('emulator payment widget, webhooks and chain lookup (docs: payment widget, notifications, chain lookup)', () => {
  let kudos: KudosEmulator;
  let sink: WebhookSink;
  let browser: CookieClient;

  async function openWidget(params: Record<string, string>): Promise<Response> {
    await browser.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/in/account',
    });
    return browser.get(`${kudos.authURL}/in/widget/pay?${new URLSearchParams(params)}`);
  }

  async function payInWidget(params: Record<string, string>, decision = 'confirm'): Promise<Response> {
    const page = await openWidget(params);
    expect(page.status).toBe(200);
    const fields = formFields(await page.text(), '/in/widget/pay');
    return browser.postForm(`${kudos.authURL}/in/widget/pay`, { ...fields, decision });
  }

  beforeEach(async () => {
    sink = await startWebhookSink();
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS.map((u) => (u.id === 'bobby' ? { ...u, paymentRedirectURIs: [SHOP] } : u)),
      agents: [{ id: 'shop-agent', webhookURL: sink.url, paymentRedirectURIs: [SHOP] }],
      paymentDelayMs: 20,
      webhook: { attempts: 4, retryDelayMs: 20 },
    });
    browser = new CookieClient();
  });
  afterEach(async () => {
    await kudos.close();
    await sink.close();
  });

  it('asks a logged-out payer to log in first', async () => {
    const res = await browser.get(`${kudos.authURL}/in/widget/pay?to=bobby&amount=1`);
    expect(locationOf(res, kudos.authURL).pathname).toBe('/in/login');
  });

  it('shows payer, receiver, amount, agent and fee, and asks to confirm', async () => {
    const html = await (
      await openWidget({ to: 'bobby', amount: '3', via: 'shop-agent', fee: '1', remarks: 'thanks' })
    ).text();
    expect(html).toContain('<td id="pay-from">alice</td>');
    expect(html).toContain('<td id="pay-to">bobby</td>');
    expect(html).toContain('<td id="pay-amount">3 KUDOS</td>');
    expect(html).toContain('<td id="pay-via">shop-agent</td>');
    expect(html).toContain('<td id="pay-fee">1 KUDOS</td>');
    expect(html).toContain('<td id="pay-remarks">thanks</td>');
    expect(html).toContain('value="confirm">Confirm</button>');
  });

  it.each([
    [{ amount: '1' }, 400, 'INVALID_RECIPIENT'],
    [{ to: 'bobby,', amount: '1' }, 400, 'INVALID_RECIPIENT'],
    [{ to: 'nobody', amount: '1' }, 404, 'RECEIPIENT_NOT_FOUND'],
    [{ to: 'bobby,nobody', amount: '1' }, 404, 'No user &quot;nobody&quot;'],
    [{ to: 'bobby', amount: '0' }, 400, '"amount" must be a positive number of tokens'],
    [{ to: 'bobby', amount: '0.0000000001' }, 400, '"amount" must be a positive number of tokens'],
    [{ to: 'bobby', amount: '-1' }, 400, '"amount" must be a positive number of tokens'],
    [{ to: 'bobby,shop-agent', amount: '1,2,3' }, 400, 'RECIPIENT_AND_AMOUNT_SIZE_MISMATCH'],
    [{ to: 'bobby,shop-agent', amount: '1' }, 400, 'RECIPIENT_AND_AMOUNT_SIZE_MISMATCH'],
    [{ to: 'bobby', amount: '1', via: 'ghost' }, 404, 'RECEIPIENT_NOT_FOUND'],
    [{ to: 'bobby', amount: '1', fee: '1' }, 400, 'MISSING_VIA'],
    [
      { to: 'bobby', amount: '1', redirect_uri: 'javascript:alert(1)' },
      400,
      '"redirect_uri" must be an absolute http(s) URL.',
    ],
  ])(
    'answers bad widget parameters %j with status %i and an error page naming the parameter or the code',
    async (params, status, message) => {
      const res = await openWidget(params);
      expect(res.status).toBe(status);
      expect(await res.text()).toContain(message.replace(/"/g, '&quot;'));
    },
  );

  it('redirects a confirmed payment with tx_hash, state and remarks, and settles it as success', async () => {
    const res = await payInWidget({
      to: 'bobby',
      amount: '2',
      state: 'order-7',
      remarks: 'for tea',
      redirect_uri: SHOP,
    });
    const back = locationOf(res);
    expect(`${back.origin}${back.pathname}`).toBe(SHOP);
    expect(back.searchParams.get('tx_hash')).toMatch(/^[0-9A-F]{64}$/);
    expect(back.searchParams.get('state')).toBe('order-7');
    expect(back.searchParams.get('remarks')).toBe('for tea');
    expect(back.searchParams.has('success')).toBe(false);
  });

  it('waits for confirmation and adds success=true when blocking is set', async () => {
    const back = locationOf(
      await payInWidget({ to: 'bobby', amount: '2', blocking: 'true', redirect_uri: SHOP }),
    );
    expect(back.searchParams.get('success')).toBe('true');
    const lookup = await fetch(
      `${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${back.searchParams.get('tx_hash')}`,
    );
    expect(lookup.status).toBe(200);
  });

  it('goes back nowhere after a blocking payment that failed on the chain: the widget shows the error (observed)', async () => {
    kudos.setNextPaymentOutcome('fail');
    const res = await payInWidget({ to: 'bobby', amount: '2', blocking: 'true', redirect_uri: SHOP });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    const page = await res.text();
    expect(page).toContain('TX_FAIL');
    expect(page).toContain('You are not sent back to the shop');
  });

  it('has no cancel button, and refuses a form that does not confirm (observed)', async () => {
    const page = await openWidget({ to: 'bobby', amount: '2', redirect_uri: SHOP });
    const html = await page.text();
    expect(html).toContain('value="confirm">Confirm</button>');
    expect(html).not.toContain('Cancel');
    const fields = formFields(html, '/in/widget/pay');
    const res = await browser.postForm(`${kudos.authURL}/in/widget/pay`, { ...fields, decision: 'cancel' });
    expect(res.status).toBe(400);
    await kudos.idle();
    expect(sink.received).toHaveLength(0);
  });

  it('POSTs the notification to the agent for a payment with via, shaped like the sample', async () => {
    const back = locationOf(
      await payInWidget({
        to: 'bobby',
        amount: '1',
        via: 'shop-agent',
        remarks: 'kudos pay via shop-agent',
        redirect_uri: SHOP,
      }),
    );
    await kudos.idle();
    expect(sink.received).toHaveLength(1);
    const [hook] = sink.received;
    expect(hook?.path).toBe('/hooks/kudos?token=agent-secret');
    expect(hook?.contentType).toBe('application/json');
    const body = hook?.body as { tx: Record<string, unknown>; metadata: Record<string, unknown> };
    expect(Object.keys(body).sort()).toEqual(['metadata', 'tx']);
    expect(body.tx).toEqual({
      from: expect.stringMatching(/^cosmos1[02-9ac-hj-np-z]{38}$/),
      ts: expect.any(Number),
      // The main-prefix spelling of bobby's account, as the widget pays since 2022 (observed).
      to: kudos.walletOf('bobby', 'kudos'),
      amount: { amount: '1000000000', denom: 'nanokudos' },
      completeTs: expect.any(Number),
      txHash: back.searchParams.get('tx_hash'),
      toId: 'bobby',
      fromId: 'alice',
      remarks: 'kudos pay via shop-agent',
      status: 'success',
      type: 'cosmosTransfer',
    });
    expect(body.tx.ts as number).toBeGreaterThan(1_600_000_000_000); // epoch milliseconds
    // Every widget value inside kudosPay, only the non-empty ones (no agentFee without a fee).
    expect(body.metadata).toEqual({
      kudosPay: {
        agentId: 'shop-agent',
        amounts: ['1'],
        remarks: 'kudos pay via shop-agent',
        toIds: ['bobby'],
        redirectUri: SHOP,
      },
    });
  });

  it('sends no notification without via, or for an agent without a webhook', async () => {
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
    kudos.pay({ from: 'alice', to: 'shop-agent', amount: '1', via: 'bobby' });
    await kudos.idle();
    expect(sink.received).toHaveLength(0);
    expect(kudos.deliveries).toHaveLength(0);
  });

  it('redelivers with doubling backoff while the agent answers non-2xx, then stops', async () => {
    sink.script.push(500, 503);
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect(kudos.deliveries.map((d) => [d.attempt, d.responseStatus, d.retryInMs])).toEqual([
      [1, 500, 20],
      [2, 503, 40],
      [3, 200, undefined],
    ]);
    const [a, b, c] = kudos.deliveries.map((d) => d.at) as [number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(19);
    expect(c - b).toBeGreaterThanOrEqual(39);
    expect(new Set(sink.received.map((h) => JSON.stringify(h.body))).size).toBe(1);
  });

  it('gives up after the configured attempts while the agent is down', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    kudos.setWebhook('shop-agent', `http://127.0.0.1:${port}/hook`);
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect(kudos.deliveries).toHaveLength(4);
    expect(kudos.deliveries.map((d) => d.retryInMs)).toEqual([20, 40, 80, undefined]);
    expect(kudos.deliveries.every((d) => d.error === 'ECONNREFUSED' && d.responseStatus === undefined)).toBe(
      true,
    );
  });

  it('test switch: sends every notification twice', async () => {
    kudos.webhookMode.duplicate = true;
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect(sink.received).toHaveLength(2);
    expect(sink.received[0]?.body).toEqual(sink.received[1]?.body);
  });

  it('test switch: sends pending, then success', async () => {
    kudos.webhookMode.pendingFirst = true;
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const statuses = sink.received.map((h) => (h.body as { tx: { status: string } }).tx.status);
    expect(statuses).toEqual(['pending', 'success']);
    expect(new Set(sink.received.map((h) => (h.body as { tx: { txHash: string } }).tx.txHash))).toEqual(
      new Set([tx.txHash]),
    );
  });

  it('test switch: sends them out of order (success, then pending)', async () => {
    kudos.webhookMode.outOfOrder = true;
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect(sink.received.map((h) => (h.body as { tx: { status: string } }).tx.status)).toEqual([
      'success',
      'pending',
    ]);
  });

  it.each(['fail', 'timeout'] as const)('notifies a forced %s outcome', async (outcome) => {
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', outcome });
    await kudos.idle();
    const [hook] = sink.received;
    expect((hook?.body as { tx: { status: string } } | undefined)?.tx.status).toBe(outcome);
  });

  it('answers 404 for a transaction still pending: not in a block yet', async () => {
    // Its own emulator, whose payments settle in ten minutes: the lookup is made while it is pending
    // however busy the machine (with the suite's 20 ms, a slow request may find it settled).
    const slow = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 600_000 });
    try {
      const tx = slow.pay({ from: 'alice', to: 'bobby', amount: '5' });
      const early = await fetch(`${slow.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${tx.txHash}`);
      expect(early.status).toBe(404);
      expect((await fetch(`${slow.chainURL}/cosmos/tx/v1beta1/txs/${tx.txHash}`)).status).toBe(404);
    } finally {
      await slow.close(); // its timers with it
    }
  });

  it('answers a transaction lookup in the Cosmos SDK shape', async () => {
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '5', via: 'shop-agent', remarks: 'memo' });
    await tx.settled;
    const res = await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${tx.txHash.toLowerCase()}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      tx: { body: { messages: Array<Record<string, unknown>>; memo: string } };
      tx_response: Record<string, unknown>;
    };
    expect(body.tx_response).toMatchObject({ code: 0, txhash: tx.txHash });
    expect(Number(body.tx_response.height)).toBeGreaterThan(0);
    expect(body.tx_response.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(body.tx.body.memo).toBe('memo');
    await kudos.idle();
    const hook = sink.received[0]?.body as { tx: { from: string; to: string } };
    expect(body.tx.body.messages).toEqual([
      {
        '@type': '/cosmos.bank.v1beta1.MsgSend',
        from_address: hook.tx.from,
        to_address: hook.tx.to,
        amount: [{ denom: 'nanokudos', amount: '5000000000' }],
      },
    ]);
  });

  it('answers lookups of failed, unknown and malformed hashes like the chain', async () => {
    const failed = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', outcome: 'fail' });
    await failed.settled;
    const res = await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${failed.txHash}`);
    expect(((await res.json()) as { tx_response: { code: number } }).tx_response.code).toBe(5);
    const unknown = await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${'A'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      code: 5,
      message: `tx not found: ${'A'.repeat(64)}`,
      details: [],
    });
    for (const bad of ['A'.repeat(63), 'Z'.repeat(64), '..%2F..%2Fetc']) {
      const r = await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${bad}`);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { code: number }).code).toBe(3);
    }
  });
});
