import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestChainNode, type TestChainNode, testHash } from '../../../../test/helpers/chain-node.mjs';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';
import { payLink } from '../../../../test/helpers/pay-link.js';
import { PaymentsShop, SHOP_SECRET } from '../../../../test/helpers/payments-shop.js';
import { redisWithClient } from '../../../../test/helpers/redis-server.js';
import { describeSqlite } from '../../../../test/helpers/sqlite.js';
import { deliver } from '../../../../test/helpers/webhook-app.js';
import {
  type KudosDedupeStore,
  type KudosOrderStore,
  MemoryDedupeStore,
  MemoryOrderStore,
} from '../../src/index.js';
import { RedisDedupeStore, RedisOrderStore } from '../../src/redis/index.js';
import { SqliteDedupeStore } from '../../src/sqlite/index.js';

// Nothing the way back reads is ever dropped, on memory, SQLite and Redis: transfers reconcileChain()
// could not decide (the service's payer lookup down) are read again until decided, whatever their
// number, and no run says it is complete while any waits; and a notification the shop's secret
// authenticates but the chain contradicts decides nothing, so the real delivery (the emulator's own
// sender) or the next reconcileChain() credits the order, once.

const MINUTE = 60_000;

let kudos: KudosEmulator;
beforeAll(async () => {
  kudos = await startKudosEmulator({
    users: PAYMENT_USERS,
    paymentDelayMs: 5,
    webhook: { attempts: 2, retryDelayMs: 20, timeoutMs: 2000 },
  });
});
afterAll(() => kudos.close());

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await kudos.idle();
  for (const close of closers.splice(0)) await close();
});

type Stores = () => { store: KudosDedupeStore; orders: KudosOrderStore };

/** The service in front of the emulator, its payer lookup (`/users/addr/...`) answering 503 while `down`. */
async function serviceWithPayerLookup(): Promise<Listening & { down: boolean }> {
  const service = { down: false } as Listening & { down: boolean };
  const listening = await listenLocal(
    http.createServer((req, res) => {
      if (service.down && req.url?.includes('/users/addr/')) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        return res.end('Service Unavailable');
      }
      fetch(`${kudos.baseURL}${req.url?.replace(/^\/api/, '')}`).then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        res.end(await answer.text());
      });
    }),
  );
  closers.push(listening.close);
  return Object.assign(service, listening);
}

async function started(shop: PaymentsShop): Promise<PaymentsShop> {
  closers.push(() => shop.server.close());
  return shop;
}

function undecidedCases(name: string, stores: () => Stores) {
  describe(`undecided transfers, whatever their number (${name})`, () => {
    it('the payer lookup down through four runs of 60 new payments each, then back for two: all 240 credited once, no run complete before', async () => {
      const node: TestChainNode = await startTestChainNode([], { paging: 'sdk' });
      closers.push(node.close);
      const service = await serviceWithPayerLookup();
      const shop = await started(
        await new PaymentsShop(kudos).start({
          restURL: node.url,
          baseURL: `${service.url}/api`,
          ...stores()(),
        }),
      );
      const [from, to] = [kudos.walletOf('alice', 'kudos'), kudos.walletOf('bobby', 'kudos')];
      let height = 1000;
      const hashes: string[] = [];
      service.down = true;
      for (let run = 1; run <= 4; run++) {
        for (let i = 0; i < 60; i++) {
          // Orders made for alice: only a payer the service names can pay them.
          const { url } = await shop.payments.createOrder({ amount: '2', user: 'alice' });
          const hash = testHash();
          hashes.push(hash);
          const memo = new URL(url).searchParams.get('remarks') ?? '';
          node.transfers.push({
            hash,
            height: height++,
            time: Date.now() - MINUTE,
            from,
            to,
            amount: '2000000000',
            memo,
          });
        }
        const result = await shop.payments.reconcileChain(); // scheduled: no explicit since
        expect(result.incomplete).toBe(true);
        expect(result.incompleteReason).toMatch(
          /^undecided: .*: \d+ transaction\(s\) could not be decided yet/,
        );
        expect(await shop.payments.status()).toMatchObject({ chainScanOk: false, chainUndecided: run * 60 });
      }
      expect(shop.paid).toEqual([]);
      service.down = false;
      const back = await shop.payments.reconcileChain();
      expect(back).toMatchObject({ incomplete: false, failed: 0 });
      expect(await shop.payments.reconcileChain()).toMatchObject({ incomplete: false, processed: 0 });
      const times = new Map<string, number>();
      for (const p of shop.paid) times.set(p.txHash, (times.get(p.txHash) ?? 0) + 1);
      expect(hashes.filter((h) => times.get(h) === 1)).toHaveLength(240);
      expect(shop.paid).toHaveLength(240);
      expect(await shop.payments.status()).toMatchObject({ chainScanOk: true, chainUndecided: 0 });
    });
  });
}

/** The service's record of `hash`, as a forger copies it (the hash is public on the chain). */
async function recordOf(hash: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${kudos.baseURL}/tx/id/${hash}`)).json()) as Record<string, unknown>;
}

/** Copies of a real record that the chain contradicts: the denomination in capitals, one unit more, no recipient. */
function contradicted(record: Record<string, unknown>): Array<Record<string, unknown>> {
  const amount = record.amount as { amount: string; denom: string };
  const { to: _to, ...noRecipient } = record;
  return [
    { ...record, amount: { ...amount, denom: amount.denom.toUpperCase() } },
    { ...record, amount: { ...amount, amount: String(BigInt(amount.amount) + 1n) } },
    noRecipient,
  ];
}

function unconfirmedCases(name: string, stores: () => Stores) {
  describe(`a notification the chain contradicts hides nothing (${name})`, () => {
    for (const path of ['the real delivery', 'the next reconcileChain()'] as const) {
      it(`after one of each, ${path} credits the order, once`, async () => {
        // The shop is down when the emulator first delivers: its real sender keeps the notification.
        const down = await listenLocal(
          http.createServer((_req, res) => {
            res.writeHead(503);
            res.end();
          }),
        );
        closers.push(down.close);
        const shop = await started(await new PaymentsShop(kudos).start(stores()()));
        kudos.setWebhook('shop-agent', `${down.url}?token=${SHOP_SECRET}`);
        const { order, url } = await shop.payments.createOrder({ amount: '2' });
        const tx = payLink(kudos, url, 'alice');
        await kudos.idle();
        const real = kudos.deliveries.filter((d) => d.txHash === tx.txHash).at(-1);
        expect(real?.responseStatus).toBe(503);
        const state = new URL(url).searchParams.get('state');
        for (const forged of contradicted(await recordOf(tx.txHash))) {
          const answer = await deliver(`${shop.server.url}?token=${SHOP_SECRET}`, {
            tx: forged,
            metadata: { kudosPay: { state } },
          });
          expect([answer.status, answer.json.code]).toEqual([422, 'unconfirmed']);
        }
        expect(shop.paid).toEqual([]);
        // Kept as what it is, for the operator: not processed, the chain's word in its last error.
        expect(await shop.payments.unprocessed()).toEqual([
          expect.objectContaining({
            txHash: tx.txHash,
            attempts: 3,
            lastError: expect.stringMatching(/^unconfirmed: /),
          }),
        ]);
        expect(shop.errors.filter((e) => e.code === 'unconfirmed')).toHaveLength(3);
        shop.connect();
        if (path === 'the real delivery') {
          expect(kudos.resend(real?.id ?? -1)).toBe(true);
          await kudos.idle();
          expect(kudos.deliveries.at(-1)).toMatchObject({ txHash: tx.txHash, responseStatus: 200 });
          expect(await shop.payments.reconcileChain()).toMatchObject({ incomplete: false }); // a duplicate now
        } else {
          expect(await shop.payments.reconcileChain()).toMatchObject({ incomplete: false });
          expect(shop.paid.map((p) => [p.txHash, p.source])).toEqual([[tx.txHash, 'reconcile']]);
          expect(kudos.resend(real?.id ?? -1)).toBe(true);
          await kudos.idle();
          expect(kudos.deliveries.at(-1)).toMatchObject({ txHash: tx.txHash, responseStatus: 200 });
        }
        expect(shop.paid.map((p) => [p.order.reference, p.txHash])).toEqual([[order.reference, tx.txHash]]);
        expect(await shop.payments.unprocessed()).toEqual([]);
        expect(await shop.payments.check({ reference: order.reference, txHash: tx.txHash })).toMatchObject({
          status: 'paid',
        });
      });
    }
  });
}

const memory = () => {
  const store = new MemoryDedupeStore();
  const orders = new MemoryOrderStore();
  return () => ({ store, orders });
};
undecidedCases('memory', memory);
unconfirmedCases('memory', memory);

describe('on Redis', () => {
  const served = redisWithClient();
  const redis = () => {
    const prefix = randomUUID();
    return () => ({
      store: new RedisDedupeStore(served.client, { prefix: `dedupe:${prefix}:` }),
      orders: new RedisOrderStore(served.client, { prefix: `orders:${prefix}:` }),
    });
  };
  undecidedCases('Redis', redis);
  unconfirmedCases('Redis', redis);
});

describeSqlite('on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-nothing-dropped-'));
  const opened: SqliteDedupeStore[] = [];
  afterAll(() => {
    for (const store of opened) store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const sqlite = () => {
    const store = new SqliteDedupeStore({ path: join(dir, `${randomUUID()}.sqlite`) });
    opened.push(store);
    const orders = store.orderStore();
    return () => ({ store, orders });
  };
  undecidedCases('SQLite', sqlite);
  unconfirmedCases('SQLite', sqlite);
});
