import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestChainNode,
  type TestChainNode,
  type TestTransfer,
  testHash,
} from '../../../../test/helpers/chain-node.mjs';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { PaymentsShop } from '../../../../test/helpers/payments-shop.js';
import { redisWithClient } from '../../../../test/helpers/redis-server.js';
import { describeSqlite } from '../../../../test/helpers/sqlite.js';
import {
  type KudosDedupeStore,
  type KudosOrderStore,
  type KudosPaymentsOptions,
  MemoryDedupeStore,
  MemoryOrderStore,
} from '../../src/index.js';
import { RedisDedupeStore, RedisOrderStore } from '../../src/redis/index.js';
import { SqliteDedupeStore } from '../../src/sqlite/index.js';

// How far reconcileChain() read the chain is kept in the store the shop already has, so that a run
// cut short (a node error, a process that died) is resumed where it stopped by the next run, in this
// process or another one sharing the store, with nothing in the window skipped; and two instances on
// one store never scan at once.

const MINUTE = 60_000;
let kudos: KudosEmulator;
beforeAll(async () => {
  kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5 });
});
afterAll(() => kudos.close());

const shops: PaymentsShop[] = [];
const nodes: TestChainNode[] = [];
afterEach(async () => {
  for (const shop of shops.splice(0)) await shop.server.close();
  for (const node of nodes.splice(0)) await node.close();
});

/** A store pair (dedupe, orders) that a second instance opens on the same backend. */
type Stores = () => { store: KudosDedupeStore; orders: KudosOrderStore };

async function instance(node: TestChainNode, stores: Stores, extra: Partial<KudosPaymentsOptions> = {}) {
  const shop = await new PaymentsShop(kudos).start({ restURL: node.url, ...stores(), ...extra });
  shops.push(shop);
  return shop;
}

/** 550 transfers to the shop, newest first on pages of 100: 547 strangers' tips and, oldest, 3 orders paid. */
async function window(shop: PaymentsShop): Promise<TestTransfer[]> {
  const to = kudos.walletOf('bobby', 'kudos');
  const from = kudos.walletOf('alice', 'kudos');
  const transfers: TestTransfer[] = [];
  for (let i = 0; i < 3; i++) {
    const { url } = await shop.payments.createOrder({ amount: '2' });
    const memo = new URL(url).searchParams.get('remarks') ?? '';
    transfers.push({
      hash: testHash(),
      height: 1 + i,
      time: Date.now() - 900 * MINUTE,
      from,
      to,
      amount: '2000000000',
      memo,
    });
  }
  for (let i = 0; i < 547; i++) {
    transfers.push({
      hash: testHash(),
      height: 10 + i,
      time: Date.now() - (600 - i * 0.1) * MINUTE,
      from,
      to,
      amount: '1',
      memo: 'a tip',
    });
  }
  return transfers;
}

const credited = (shop: PaymentsShop) => new Set(shop.paid.map((p) => p.txHash));

function resumeCases(name: string, stores: () => Stores) {
  describe(`a run cut short, resumed (${name})`, () => {
    it('after a node error, the next instance goes on from the fifth page: every order credited once', async () => {
      const node = await startTestChainNode([], { paging: 'sdk', failAtSearch: 5 });
      nodes.push(node);
      const both = stores();
      const first = await instance(node, both);
      node.transfers.push(...(await window(first)));
      await expect(first.payments.reconcileChain()).rejects.toMatchObject({ code: 'api_error' });
      expect(first.paid).toEqual([]);
      node.reset();
      const second = await instance(node, both); // a restart: what was read is in the store
      expect(await second.payments.reconcileChain()).toMatchObject({ incomplete: false });
      expect(node.asked.map((u) => u.searchParams.get('page'))).toEqual(['1', '4', '5', '6', '1']);
      expect(credited(second).size).toBe(3);
      expect(second.paid).toHaveLength(3);
      node.reset();
      expect(await second.payments.reconcileChain()).toMatchObject({ seen: 0, requests: 2 });
    });
  });
}

resumeCases('memory', () => {
  const store = new MemoryDedupeStore();
  const orders = new MemoryOrderStore();
  return () => ({ store, orders });
});

describe('on Redis', () => {
  const served = redisWithClient();
  resumeCases('Redis', () => {
    const prefix = randomUUID();
    return () => ({
      store: new RedisDedupeStore(served.client, { prefix: `dedupe:${prefix}:` }),
      orders: new RedisOrderStore(served.client, { prefix: `orders:${prefix}:` }),
    });
  });

  it('two instances on one Redis: a call while the other runs returns at once, busy; one scan', async () => {
    const node = await startTestChainNode([], { paging: 'sdk', delayMs: 40 });
    nodes.push(node);
    const prefix = randomUUID();
    const both = () => ({
      store: new RedisDedupeStore(served.client, { prefix: `dedupe:${prefix}:` }),
      orders: new RedisOrderStore(served.client, { prefix: `orders:${prefix}:` }),
    });
    const [a, b] = [await instance(node, both), await instance(node, both)];
    node.transfers.push(...(await window(a)));
    const running = a.payments.reconcileChain();
    while (node.searches < 1) await new Promise((resolve) => setTimeout(resolve, 5)); // a's scan is under way
    const other = await b.payments.reconcileChain();
    expect(other).toMatchObject({ busy: true, seen: 0, requests: 0 });
    expect(await running).toMatchObject({ incomplete: false });
    expect(node.searches).toBe(7);
    expect(credited(a).size + credited(b).size).toBe(3);
  });
});

describeSqlite('on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-chain-scan-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const opened: SqliteDedupeStore[] = [];
  afterAll(() => {
    for (const store of opened) store.close();
  });
  const file = (now?: () => number) => {
    const path = join(dir, `${randomUUID()}.sqlite`);
    return (clock = now) => {
      const store = new SqliteDedupeStore({ path, ...(clock ? { now: clock } : {}) });
      opened.push(store);
      return { store, orders: store.orderStore() };
    };
  };
  resumeCases('SQLite', () => {
    const open = file();
    return () => open();
  });

  it('after a process died mid-scan (its lease left to run out), another goes on from where it stopped', async () => {
    const node = await startTestChainNode([], { paging: 'sdk', hangAtSearch: 5 });
    nodes.push(node);
    const open = file();
    const dead = await instance(node, () => open());
    node.transfers.push(...(await window(dead)));
    const hanging = dead.payments.reconcileChain().catch(() => 'ended');
    while (node.searches < 5) await new Promise((resolve) => setTimeout(resolve, 10));
    node.reset();
    // Its lease is still held (it renews it while it waits): a second instance now is told busy.
    const early = await instance(node, () => open());
    expect(await early.payments.reconcileChain()).toMatchObject({ busy: true });
    // Later than the lease (the store's clock moved on): the second instance goes on from page 5.
    const later = await instance(node, () => open(() => Date.now() + 10 * MINUTE), {
      now: () => Date.now() + 10 * MINUTE,
    });
    expect(await later.payments.reconcileChain()).toMatchObject({ incomplete: false });
    expect(node.asked.map((u) => u.searchParams.get('page'))).toEqual(['1', '4', '5', '6', '1']);
    expect(credited(later).size).toBe(3);
    await node.close();
    expect(await hanging).toBe('ended');
  });
});
