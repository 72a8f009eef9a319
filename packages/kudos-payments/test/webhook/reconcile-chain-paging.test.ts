import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import {
  countingProxy,
  startTestChainNode,
  type TestChainNode,
  type TestTransfer,
  testHash,
} from '../../../../test/helpers/chain-node.mjs';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { listenLocal } from '../../../../test/helpers/listen.js';
import { PaymentsShop } from '../../../../test/helpers/payments-shop.js';
import type { KudosChainScanMessage } from '../../../kudos-core/src/base/trace.js';
import { cosmosConfirmer, type KudosNotification, kudosReceiver } from '../../src/index.js';

// reconcileChain() against the chain as the chain answers (docs/payments.md#the-way-back): the
// emulator's chain paging as the chain's own software (SDK 0.46: page/limit, a top-level total) and
// as the service's indexer (pagination.offset, pagination.total), and test nodes that cap their pages,
// lie about their total, ignore the order, leave out block times, repeat a page or answer slowly.
// Requests are counted by the nodes themselves (or a real proxy in front of the emulator's chain).

const MINUTE = 60_000;

function linkParams(url: string) {
  const params = new URL(url).searchParams;
  return { remarks: params.get('remarks') ?? '', state: params.get('state') ?? '' };
}

let kudos: KudosEmulator | undefined;
let shop: PaymentsShop | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await kudos?.idle();
  await shop?.server.close();
  for (const close of closers.splice(0)) await close();
  await kudos?.close();
  kudos = shop = undefined;
});

async function emulator(options: Parameters<typeof startKudosEmulator>[0] = {}) {
  kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5, ...options });
  return kudos;
}

describe("the emulator's chain, paged as the chain's own software and as the indexer", () => {
  for (const chainSearch of ['sdk', 'indexer'] as const) {
    it(`credits 250 lost payments once each in 4 requests (${chainSearch}); the next run costs 2`, async () => {
      const k = await emulator({ chainSearch });
      const proxy = await countingProxy(k.chainURL);
      closers.push(proxy.close);
      shop = await new PaymentsShop(k).start({ restURL: proxy.url });
      const orders = [];
      for (let i = 0; i < 250; i++) {
        const made = await shop.payments.createOrder({ amount: '1' });
        orders.push(made.order.reference);
        k.pay({
          from: 'alice',
          to: 'bobby',
          amount: '1',
          via: 'shop-agent',
          ...linkParams(made.url),
          metadataPosted: false,
        });
      }
      await k.idle();
      expect(k.deliveries).toHaveLength(0); // no notification brought any of them
      proxy.reset();
      const result = await shop.payments.reconcileChain();
      expect(result).toMatchObject({ seen: 250, processed: 250, failed: 0, incomplete: false });
      // Three pages of the main spelling and one of the legacy; no lookup: the search's answer is confirmed.
      expect([proxy.searches, proxy.lookups, result.requests]).toEqual([4, 0, 4]);
      expect(orders.map((reference) => shop?.paidTimes(reference))).toEqual(orders.map(() => 1));
      proxy.reset();
      expect(await shop.payments.reconcileChain()).toMatchObject({
        seen: 0,
        processed: 0,
        incomplete: false,
      });
      expect(proxy.searches).toBe(2);
      expect(shop.paid).toHaveLength(250);
    });
  }
});

/** A shop on kudosPayments() whose chain node is `node`, and transfers to its wallet. */
async function shopOn(node: TestChainNode) {
  const k = kudos ?? (await emulator());
  shop = await new PaymentsShop(k).start({ restURL: node.url });
  const to = k.walletOf('bobby', 'kudos');
  const from = k.walletOf('alice', 'kudos');
  let height = 1000;
  const at = (minutesAgo: number) => Date.now() - minutesAgo * MINUTE;
  /** `count` strangers' transfers of 1 nanokudos naming no order, older first, `minutesAgo` back. */
  const noise = (count: number, minutesAgo = 600) =>
    Array.from({ length: count }, (_, i) => ({
      hash: testHash(),
      height: height++,
      time: at(minutesAgo - i * 0.01),
      from,
      to,
      amount: '1',
      memo: 'a tip',
    }));
  /** Orders made now and their payments on the chain. */
  const real = async (count: number, minutesAgo = 300): Promise<TestTransfer[]> => {
    const paid: TestTransfer[] = [];
    for (let i = 0; i < count; i++) {
      const { url } = await (shop as PaymentsShop).payments.createOrder({ amount: '2' });
      paid.push({
        hash: testHash(),
        height: height++,
        time: at(minutesAgo - i),
        from,
        to,
        amount: '2000000000',
        memo: linkParams(url).remarks,
      });
    }
    return paid;
  };
  return { shop, noise, real, old: (count: number) => noise(count, 8 * 24 * 60) };
}

async function node(behaviour: Parameters<typeof startTestChainNode>[1] = { paging: 'sdk' }) {
  const started = await startTestChainNode([], behaviour);
  closers.push(started.close);
  return started;
}

const credited = () => new Set(shop?.paid.map((p) => p.txHash)).size;

describe('the public node read whole: exact stand-ins of the indexer and of the chain’s own software', () => {
  /** Each order of `paid` credited exactly once. */
  const onceEach = (paid: readonly TestTransfer[]) => {
    const times = new Map<string, number>();
    for (const p of shop?.paid ?? []) times.set(p.txHash, (times.get(p.txHash) ?? 0) + 1);
    return paid.filter((p) => times.get(p.hash) === 1).length;
  };

  it('an indexer that counts only when asked: 250 lost payments credited once each in at most 8 searches, complete', async () => {
    const n = await node({ paging: 'indexer' });
    const { real } = await shopOn(n);
    const paid = await real(250, 900);
    n.transfers.push(...paid);
    const result = await shop?.payments.reconcileChain();
    expect(result).toMatchObject({ seen: 250, processed: 250, failed: 0, incomplete: false });
    expect(onceEach(paid)).toBe(250);
    // ceil(250 / 100) pages of the main spelling, one of the legacy: 4, within ceil(n/100) + 2 = 5.
    expect(n.searches).toBe(4);
    expect(n.asked.every((u) => u.searchParams.get('pagination.count_total') === 'true')).toBe(true);
    expect(n.asked.every((u) => u.searchParams.get('pagination.limit') === '100')).toBe(true);
    expect(await shop?.payments.status()).toMatchObject({ chainScanOk: true });
  });

  it('an indexer that never counts (totals "0" beside its rows): no contradiction, every payment credited', async () => {
    const n = await node({ paging: 'indexer', total: () => '0' });
    const { real } = await shopOn(n);
    const paid = await real(250, 900);
    n.transfers.push(...paid);
    const result = await shop?.payments.reconcileChain();
    expect(result).toMatchObject({ seen: 250, processed: 250, incomplete: false });
    expect(onceEach(paid)).toBe(250);
    expect(n.searches).toBeLessThanOrEqual(5); // 100, 100, 50 (short: the last), and the legacy spelling's
  });

  it('the chain’s own software with a window of whole pages (200): credited once each in at most 6 searches, no page past the last asked', async () => {
    const n = await node({ paging: 'sdk' });
    const { real } = await shopOn(n);
    const paid = await real(200, 900);
    n.transfers.push(...paid);
    const result = await shop?.payments.reconcileChain();
    expect(result).toMatchObject({ seen: 200, processed: 200, failed: 0, incomplete: false });
    expect(onceEach(paid)).toBe(200);
    expect(n.searches).toBeLessThanOrEqual(6);
    expect(n.searches).toBe(3); // pages 1 and 2 of the main spelling (the total says that is all), 1 of the legacy
  });

  it('the same 250 on the chain’s own software: credited once each, complete', async () => {
    const n = await node({ paging: 'sdk' });
    const { real } = await shopOn(n);
    const paid = await real(250, 900);
    n.transfers.push(...paid);
    expect(await shop?.payments.reconcileChain()).toMatchObject({
      seen: 250,
      processed: 250,
      incomplete: false,
    });
    expect(onceEach(paid)).toBe(250);
    expect(n.searches).toBe(4);
  });

  it('a real contradiction on a counting indexer is still stopped and named', async () => {
    const n = await node({ paging: 'indexer', total: () => '7' });
    const { real } = await shopOn(n);
    n.transfers.push(...(await real(150, 900)));
    const result = await shop?.payments.reconcileChain();
    expect(result?.incomplete).toBe(true);
    expect(result?.incompleteReason).toMatch(
      /^total_contradicted: .*the node says 7 transactions match, and listed 100$/,
    );
  });
});

describe('a node taken on trust no more', () => {
  it('one that caps its pages at 50 but says 120: every transfer read, the 3 real payments credited', async () => {
    const n = await node({ paging: 'indexer', cap: 50 });
    const { real, noise } = await shopOn(n);
    const paid = await real(3, 900); // the oldest: only a scan of the whole window reaches them
    n.transfers.push(...paid, ...noise(117));
    const result = await shop?.payments.reconcileChain();
    expect(result).toMatchObject({ seen: 120, incomplete: false });
    expect(credited()).toBe(3);
    expect(n.searches).toBe(4); // 50 + 50 + 20, and the legacy spelling's empty page
  });

  it('the same cap on a node that pages by page and limit (the SDK): asks its own page size', async () => {
    const n = await node({ paging: 'sdk', cap: 50 });
    const { real, noise } = await shopOn(n);
    n.transfers.push(...(await real(3, 900)), ...noise(117));
    expect(await shop?.payments.reconcileChain()).toMatchObject({ seen: 120, incomplete: false });
    expect(credited()).toBe(3);
    expect(n.asked.slice(1, 3).map((u) => [u.searchParams.get('page'), u.searchParams.get('limit')])).toEqual(
      [
        ['2', '50'],
        ['3', '50'],
      ],
    );
  });

  it('a total of "1" for 150 transfers: stopped at once, and the result says why, naming the node', async () => {
    const n = await node({ paging: 'sdk', total: () => '1' });
    const { real, noise } = await shopOn(n);
    n.transfers.push(...(await real(3, 900)), ...noise(147));
    const result = await shop?.payments.reconcileChain();
    expect(result?.incomplete).toBe(true);
    expect(result?.incompleteReason).toMatch(
      /^total_contradicted: the chain's search for transfer\.recipient='kudos1[a-z0-9]+' at http:\/\/127\.0\.0\.1:\d+\/cosmos\/tx\/v1beta1\/txs: the node says 1 transactions match, and listed 100$/,
    );
    expect(n.searches).toBeLessThanOrEqual(3);
    const status = await shop?.payments.status();
    expect(status).toMatchObject({ chainScanOk: false });
    expect(status?.chainScanError).toContain('total_contradicted');
  });

  it('one that ignores the order (oldest first, old transfers first): nothing old ends the scan, 3/3 credited', async () => {
    const n = await node({ paging: 'sdk', ignoreOrder: true });
    const { real, noise, old } = await shopOn(n);
    n.transfers.push(...old(20), ...noise(127), ...(await real(3, 1)));
    const result = await shop?.payments.reconcileChain();
    expect(result).toMatchObject({ seen: 130, incomplete: false });
    expect(credited()).toBe(3);
  });

  it('entries without a block time end nothing: looked up by hash, a real payment among them is credited', async () => {
    const n = await node({ paging: 'sdk' });
    const { real, noise } = await shopOn(n);
    const paid = await real(3, 900);
    const stray = noise(147);
    n.transfers.push(...paid, ...stray);
    n.behaviour.untimed = new Set([stray.at(-1)?.hash as string, paid[2]?.hash as string]);
    const result = await shop?.payments.reconcileChain();
    expect(result).toMatchObject({ seen: 150, incomplete: false });
    expect(credited()).toBe(3);
    expect(n.lookups).toBe(2); // the two entries without a time, and no other
  });

  it('one that answers page 1 to every request: stopped on the second page, saying so', async () => {
    const n = await node({ paging: 'sdk', repeatFirstPage: true });
    const { real, noise } = await shopOn(n);
    n.transfers.push(...noise(147), ...(await real(3, 1)));
    const result = await shop?.payments.reconcileChain();
    expect(result?.incomplete).toBe(true);
    expect(result?.incompleteReason).toMatch(
      /^repeated_page: .* the page at offset 100 held only transactions already read$/,
    );
    expect(n.searches).toBeLessThanOrEqual(4);
    expect(credited()).toBe(3); // on the page it did read
  });

  it('a slow node: read whole within each request’s time limit', async () => {
    const n = await node({ paging: 'indexer', delayMs: 40 });
    const { real, noise } = await shopOn(n);
    n.transfers.push(...(await real(3, 900)), ...noise(120));
    expect(await shop?.payments.reconcileChain()).toMatchObject({ seen: 123, incomplete: false });
    expect(credited()).toBe(3);
  });

  it('a 404 that is not the chain’s own not-found (another JSON) is endpoint_gone, not "no transactions"', async () => {
    const k = await emulator();
    shop = await new PaymentsShop(k).start({ restURL: `${k.chainURL}/nowhere` });
    await expect(shop.payments.reconcileChain()).rejects.toMatchObject({
      code: 'endpoint_gone',
      message: expect.stringContaining('/nowhere/cosmos/tx/v1beta1/txs answered 404'),
    });
    expect((await shop.payments.status()).chainScanError).toContain('endpoint_gone');
  });
});

describe('the cost of what is new', () => {
  it('600 transfers in the window: nothing new costs 2 requests; 3 new ones are credited in 2', async () => {
    const n = await node({ paging: 'sdk' });
    const { real, noise } = await shopOn(n);
    n.transfers.push(...noise(600));
    expect(await shop?.payments.reconcileChain()).toMatchObject({
      seen: 600,
      incomplete: false,
      requests: 7,
    });
    n.reset();
    expect(await shop?.payments.reconcileChain()).toMatchObject({ seen: 0, incomplete: false, requests: 2 });
    expect(n.searches + n.lookups).toBeLessThanOrEqual(4);
    n.transfers.push(...(await real(3, 0)));
    n.reset();
    expect(await shop?.payments.reconcileChain()).toMatchObject({ seen: 3, processed: 3 });
    expect(n.searches + n.lookups).toBeLessThanOrEqual(6);
    expect(credited()).toBe(3);
  });

  it('two overlapping calls make one scan: the second joins the first', async () => {
    const n = await node({ paging: 'sdk', delayMs: 30 });
    const { real, noise } = await shopOn(n);
    n.transfers.push(...noise(250), ...(await real(3, 0)));
    const [first, second] = await Promise.all([
      shop?.payments.reconcileChain(),
      shop?.payments.reconcileChain(),
    ]);
    expect(second).toMatchObject({ ...first, joined: true });
    expect(n.searches).toBe(4);
    expect(credited()).toBe(3);
  });

  it('a run a node error cut short is resumed where it stopped: no page read twice but the one it lands on', async () => {
    const n = await node({ paging: 'sdk', failAtSearch: 5 });
    const { real, noise } = await shopOn(n);
    n.transfers.push(...(await real(3, 900)), ...noise(547));
    await expect(shop?.payments.reconcileChain()).rejects.toMatchObject({ code: 'api_error' });
    expect(credited()).toBe(0); // the real ones are on the last page
    n.reset();
    const resumed = await shop?.payments.reconcileChain();
    expect(resumed).toMatchObject({ incomplete: false });
    expect(credited()).toBe(3);
    // Page 1 (what is new), then straight to page 4 (where it stopped), 5, 6, and the legacy spelling.
    expect(n.asked.map((u) => u.searchParams.get('page'))).toEqual(['1', '4', '5', '6', '1']);
  });
});

describe('payers named without stopping the scan', () => {
  it('a failing address lookup costs that one transaction: the scan goes on, and the next run credits it', async () => {
    const k = await emulator();
    const n = await node({ paging: 'sdk' });
    let failing = k.walletOf('alice', 'kudos');
    // The payer lookup goes through a server that fails for one address (the service answering 500).
    let lookups = 0;
    const service = await listenLocal(
      http.createServer((req, res) => {
        if (req.url?.includes('/users/addr/')) lookups++;
        if (failing !== '' && req.url?.includes(`/users/addr/${failing}`)) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          return res.end('Internal Server Error');
        }
        fetch(`${k.baseURL}${req.url?.replace(/^\/api/, '')}`).then(async (answer) => {
          res.writeHead(answer.status, {
            'content-type': answer.headers.get('content-type') ?? 'text/plain',
          });
          res.end(await answer.text());
        });
      }),
    );
    closers.push(service.close);
    shop = await new PaymentsShop(k).start({ restURL: n.url, baseURL: `${service.url}/api` });
    const to = k.walletOf('bobby', 'kudos');
    const transfers: TestTransfer[] = [];
    // Alice pays an order made for her (her name is needed), then one made for no one, and shop-agent one.
    const paying: Array<[string, string | undefined]> = [
      ['alice', 'alice'],
      ['alice', undefined],
      ['shop-agent', undefined],
    ];
    for (const [i, [payer, user]] of paying.entries()) {
      const { url } = await shop.payments.createOrder({ amount: '2', ...(user ? { user } : {}) });
      transfers.push({
        hash: testHash(),
        height: 10 + i,
        time: Date.now() - (10 - i) * MINUTE,
        from: k.walletOf(payer, 'kudos'),
        to,
        amount: '2000000000',
        memo: linkParams(url).remarks,
      });
    }
    n.transfers.push(...transfers);
    const first = await shop.payments.reconcileChain();
    // The one it could not decide waits for the next run: this one is not complete.
    expect(first).toMatchObject({ seen: 3, processed: 2, failed: 1, incomplete: true });
    expect(first.incompleteReason).toMatch(/^undecided: /);
    expect(await shop.payments.status()).toMatchObject({ chainScanOk: false, chainUndecided: 1 });
    expect(credited()).toBe(2); // the order for no one is credited, its payer unnamed
    expect(shop.paid.map((p) => p.payer).sort()).toEqual([null, 'shop-agent'].sort());
    expect(shop.errors.some((e) => /the payer could not be named/.test(e.message))).toBe(true);
    failing = '';
    n.reset();
    const second = await shop.payments.reconcileChain();
    expect(second).toMatchObject({ processed: 1, failed: 0 });
    expect(credited()).toBe(3);
    expect(shop.paid.at(-1)?.payer).toBe('alice');
    expect(n.lookups).toBe(1); // the one kept, looked up by hash
    // A run over what was processed already asks no payer again: the duplicate check comes first.
    lookups = 0;
    expect(await shop.payments.reconcileChain({ since: 0 })).toMatchObject({ seen: 3, duplicates: 3 });
    expect(lookups).toBe(0);
  });
});

describe('what only the chain brought, counted; and health that tells', () => {
  it('status() and the passport-kudos:chain channel count the transfers no notification brought', async () => {
    const n = await node({ paging: 'sdk' });
    const { real } = await shopOn(n);
    n.transfers.push(...(await real(3, 10)));
    const ended: KudosChainScanMessage[] = [];
    const onEnd = (message: unknown) => ended.push(message as KudosChainScanMessage);
    subscribe('tracing:passport-kudos:chain:asyncEnd', onEnd);
    try {
      await shop?.payments.reconcileChain();
    } finally {
      unsubscribe('tracing:passport-kudos:chain:asyncEnd', onEnd);
    }
    expect(ended.map((m) => [m.outcome, m.recovered, m.requests])).toEqual([['complete', 3, 2]]);
    expect(await shop?.payments.status()).toMatchObject({
      recoveredFromChain: 3,
      chainScanOk: true,
      chainScanError: null,
    });
  });

  it('the 2026 service without restURL: check() tells onError and turns lookupOk false', async () => {
    const k = await emulator({ generation: '2026' });
    shop = await new PaymentsShop(k).start();
    const { order } = await shop.payments.createOrder({ amount: '1' });
    const check = await shop.payments.check({ reference: order.reference, txHash: 'A'.repeat(64) });
    expect(check.status).toBe('pending');
    expect(shop.errors.map((e) => e.code)).toContain('endpoint_gone');
    const status = await shop.payments.status();
    expect(status.lookupOk).toBe(false);
    expect(status.lookupError).toContain(`${k.baseURL}/cosmos/lcd`);
  });
});

describe('a low-level receiver reads the chain the same way', () => {
  it('kudosReceiver().reconcileChain() on a capped indexer: every transfer once', async () => {
    const n = await node({ paging: 'indexer', cap: 30 });
    const k = await emulator();
    const seen: KudosNotification[] = [];
    const wallet = k.walletOf('bobby', 'kudos');
    const hook = kudosReceiver({
      secret: false,
      confirm: cosmosConfirmer({ restURL: n.url, wallet }),
      onNotification: (notification) => {
        seen.push(notification);
      },
    });
    for (let i = 0; i < 95; i++) {
      n.transfers.push({
        hash: testHash(),
        height: i + 1,
        time: Date.now() - (100 - i) * MINUTE,
        from: k.walletOf('alice', 'kudos'),
        to: wallet,
        amount: '5',
        memo: '',
      });
    }
    expect(await hook.reconcileChain({ wallet, restURL: n.url })).toMatchObject({
      seen: 95,
      processed: 95,
      incomplete: false,
    });
    expect(new Set(seen.map((s) => s.tx.txHash)).size).toBe(95);
    expect(seen.every((s) => s.paid)).toBe(true);
    expect(n.lookups).toBe(0);
  });
});
