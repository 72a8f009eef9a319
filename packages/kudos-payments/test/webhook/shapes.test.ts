import { type KudosEmulator, type KudosEmulatorOptions, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { sampleNotification, withTx } from '../../../../test/helpers/notifications.js';
import { deliver, startWebhookApp, type WebhookApp } from '../../../../test/helpers/webhook-app.js';
import { cosmosConfirmer, type KudosNotification } from '../../src/index.js';

// A receiver never refuses a real notification for its shape: each shape the service is known to
// send, and each the emulator can produce, reaches the handler with what is known.
const AGENT_WALLET = 'cosmos1agentagentagentagentagentagentagen0';
const coin = (amount: string) => ({ amount, denom: 'nanokudos' });

describe('every notification shape reaches the handler (over real HTTP)', () => {
  let app: WebhookApp;
  afterEach(() => app?.close());

  const shapes: Array<[string, unknown, (n: KudosNotification) => void]> = [
    [
      'the sample: one MsgSend, strings and one coin',
      sampleNotification(),
      (n) => {
        expect(n.tx.amounts?.map((a) => a.value)).toEqual([1_000_000_000n]);
        expect(n.tx.outputs).toEqual([expect.objectContaining({ userId: 'bob-example', agent: false })]);
      },
    ],
    [
      "the service's MsgMultiSend: every output in to/toId, the agent's too, and ONE summed coin",
      {
        ...withTx({
          to: ['cosmos1receiver', AGENT_WALLET],
          toId: ['bob-example', 'shop-agent'],
          amount: coin('1500000000'),
        }),
        metadata: {
          kudosPay: { agentId: 'shop-agent', agentFee: '0.5', toIds: ['bob-example'], amounts: ['1'] },
        },
      },
      (n) => {
        expect(n.tx.amount.value).toBe(1_500_000_000n);
        expect(n.tx.amounts).toBeNull();
        expect(n.tx.outputs).toEqual([
          { address: 'cosmos1receiver', userId: 'bob-example', amount: null, agent: false },
          { address: AGENT_WALLET, userId: 'shop-agent', amount: null, agent: true },
        ]);
      },
    ],
    [
      'a MsgMultiSend record with one coin per output',
      {
        ...withTx({
          to: ['cosmos1receiver', AGENT_WALLET],
          toId: ['bob-example', 'shop-agent'],
          amount: [coin('1000000000'), coin('500000000')],
        }),
        metadata: { kudosPay: { agentId: 'shop-agent' } },
      },
      (n) => {
        expect(n.tx.amount.value).toBe(1_500_000_000n);
        expect(n.tx.outputs.map((o) => [o.amount?.value, o.agent])).toEqual([
          [1_000_000_000n, false],
          [500_000_000n, true],
        ]);
      },
    ],
    [
      'a payer and a receiver without a linked account (fromId and toId null)',
      withTx({ fromId: null, toId: null }),
      (n) => {
        expect(n.tx.fromId).toBeNull();
        expect(n.tx.toId).toEqual([]);
        expect(n.tx.outputs[0]?.userId).toBeNull();
      },
    ],
    [
      'several recipients with the sum and null ids',
      withTx({ to: ['cosmos1a', 'cosmos1b'], toId: ['bob-example', null], amount: coin('3') }),
      (n) => {
        expect(n.tx.toId).toEqual(['bob-example', null]);
        expect(n.tx.amount.value).toBe(3n);
      },
    ],
    [
      'odd fields (no timestamps, no type, metadata a string)',
      { ...withTx({ ts: 'x', completeTs: undefined, type: undefined }), metadata: 'x' },
      (n) => {
        expect([n.tx.ts, n.tx.completeTs, n.tx.type]).toEqual([null, null, '']);
      },
    ],
  ];

  it.each(shapes)('%s: 200 and handled once', async (_name, body, check) => {
    app = await startWebhookApp('express5');
    const res = await deliver(app.url, body);
    expect(res.status).toBe(200);
    expect(app.calls).toHaveLength(1);
    check(app.calls[0]?.notification as KudosNotification);
  });
});

describe("every shape the emulator's real sender produces is received, confirmed on chain and paid", () => {
  let kudos: KudosEmulator;
  let app: WebhookApp;
  afterEach(async () => {
    await kudos?.close();
    await app?.close();
  });

  async function setUp(options: KudosEmulatorOptions): Promise<void> {
    app = await startWebhookApp('express4');
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: app.url }],
      paymentDelayMs: 5,
      webhook: { attempts: 2, retryDelayMs: 20 },
      ...options,
    });
    await app.close();
    app = await startWebhookApp('express4', {
      confirm: cosmosConfirmer({ baseURL: kudos.baseURL, wallet: kudos.walletOf('bobby') }),
    });
    kudos.setWebhook('shop-agent', app.url);
  }

  for (const multiSendAmounts of ['total', 'per-output'] as const) {
    it.each([
      ['one recipient (MsgSend)', { to: 'bobby', amount: '1' }],
      ['one recipient and an agent fee (MsgMultiSend)', { to: 'bobby', amount: '2', fee: '0.5' }],
      ['several recipients (MsgMultiSend)', { to: ['bobby', 'alice-two'], amount: ['1', '0.25'] }],
    ] as const)(`%s, multiSendAmounts ${multiSendAmounts}`, async (_name, payment) => {
      await setUp({ multiSendAmounts, users: [...PAYMENT_USERS, { id: 'alice-two', password: 'pw' }] });
      const tx = kudos.pay({ from: 'alice', via: 'shop-agent', ...payment } as never);
      await kudos.idle();
      const handled = app.calls.map((c) => c.notification).filter((n) => n.tx.status === 'success');
      expect(handled).toHaveLength(1);
      const [n] = handled as [KudosNotification];
      expect(n.tx.txHash).toBe(tx.txHash);
      const units = (tokens: string) => BigInt(Math.round(Number(tokens) * 1e9));
      // The shop is bobby: what it received is bobby's part only, never the fee or alice-two's part.
      expect([n.confirmed, n.paid, n.received]).toEqual([
        true,
        true,
        units([payment.amount].flat()[0] as string),
      ]);
      const expectedTotal =
        [payment.amount].flat().reduce((sum, a) => sum + units(a), 0n) +
        ('fee' in payment ? units(payment.fee) : 0n);
      expect(n.tx.amount.value).toBe(expectedTotal);
      expect(n.tx.outputs.filter((o) => o.agent).length).toBe('fee' in payment ? 1 : 0);
      expect(
        kudos.deliveries.filter((d) => d.txHash === tx.txHash).every((d) => d.responseStatus === 200),
      ).toBe(true);
    });
  }
});
