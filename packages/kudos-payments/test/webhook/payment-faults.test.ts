import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { type KudosEmulator, type KudosEmulatorOptions, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';
import { deliver } from '../../../../test/helpers/webhook-app.js';
import {
  cosmosConfirmer,
  type KudosClaimContext,
  type KudosNotification,
  type KudosReceiverOptions,
  type KudosWebhookHandler,
  kudosWebhook,
  MemoryDedupeStore,
} from '../../src/index.js';

// Faults of the payments work, each with the emulator's real sender delivering real payments: the
// receiver loses no payment whatever single fault happens.

const SHOP_SECRET = 'payment-faults-shop-secret';

/** A receiver whose handler the test switches between working, failing and hanging. */
class Shop {
  mode: 'work' | 'fail' | 'hang' = 'work';
  /** Successful handler runs, by notification key. */
  readonly handled = new Map<string, KudosNotification[]>();
  hook!: KudosWebhookHandler;
  server!: Listening;
  secret: KudosReceiverOptions['secret'] = SHOP_SECRET;

  /** The webhook URL the service is given: with the secret, unless the shop runs without one. */
  get url(): string {
    return this.secret === false ? this.server.url : `${this.server.url}?token=${SHOP_SECRET}`;
  }

  async start(options: Partial<KudosReceiverOptions> = {}): Promise<this> {
    this.secret = options.secret ?? SHOP_SECRET;
    this.hook = kudosWebhook({
      secret: this.secret,
      leaseMs: 300,
      handlerTimeoutMs: 200,
      ...options,
      onNotification: async (notification) => {
        if (this.mode === 'fail') throw new Error('the shop database is down');
        if (this.mode === 'hang') return new Promise<void>(() => undefined);
        const list = this.handled.get(notification.key) ?? [];
        list.push(notification);
        this.handled.set(notification.key, list);
      },
    });
    this.server = await listenLocal(http.createServer((req, res) => this.hook(req, res)));
    return this;
  }

  /** Successful handler runs of one transaction's success. */
  times(txHash: string): number {
    return this.handled.get(`${txHash}:success`)?.length ?? 0;
  }
}

describe('payments survive every single fault (emulator sender, MemoryDedupeStore)', () => {
  let kudos: KudosEmulator;
  let shop: Shop;
  afterEach(async () => {
    await kudos?.close();
    await shop?.server.close();
  });

  async function setUp(
    webhookOptions: Partial<KudosReceiverOptions> = {},
    emulator: KudosEmulatorOptions = {},
  ) {
    shop = await new Shop().start(webhookOptions);
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: shop.url }],
      paymentDelayMs: 5,
      // The sender gives up after 3 attempts, 50 and 100 ms apart: long before the shop recovers.
      webhook: { attempts: 3, retryDelayMs: 50, timeoutMs: 1000 },
      ...emulator,
    });
  }

  it('status(): what waits and since when, the last notification (forged ones do not count), and a store that does not answer', async () => {
    class Broken extends MemoryDedupeStore {
      down = false;
      override async kept(limit: number) {
        if (this.down) throw new Error('the store is down');
        return super.kept(limit);
      }
    }
    const store = new Broken();
    await setUp({ store });
    expect(await shop.hook.status()).toEqual({
      unprocessed: 0,
      oldestUnprocessedMs: null,
      lastNotificationAt: null,
      exceptions: 0,
      oldestExceptionMs: null,
      storeOk: true,
      storeError: null,
      lookupOk: true,
      lookupError: null,
      recoveredFromChain: 0,
      chainScanOk: true,
      chainScanError: null,
      chainUndecided: 0,
    });
    const forged = await fetch(shop.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    expect((await shop.hook.status()).lastNotificationAt).toBeNull(); // no secret: not a notification
    shop.mode = 'fail';
    const before = Date.now();
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = await shop.hook.status();
    expect(waiting).toMatchObject({ unprocessed: 1, storeOk: true, storeError: null });
    expect(waiting.oldestUnprocessedMs).toBeGreaterThanOrEqual(50);
    expect(waiting.lastNotificationAt).toBeGreaterThanOrEqual(before);
    store.down = true;
    expect(await shop.hook.status()).toMatchObject({
      storeOk: false,
      storeError: 'the store is down',
      lastNotificationAt: waiting.lastNotificationAt,
    });
  });

  it('a handler that fails after the sender stopped retrying: kept, listed, and processed by redrive()', async () => {
    await setUp();
    shop.mode = 'fail';
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const sent = kudos.deliveries.filter((d) => d.txHash === tx.txHash && d.txStatus === 'success');
    expect(sent.map((d) => d.responseStatus)).toEqual([500, 500, 500]); // the sender gave up
    const [kept] = await shop.hook.unprocessed();
    expect(kept).toMatchObject({
      key: `${tx.txHash}:success`,
      txHash: tx.txHash,
      status: 'success',
      attempts: 3,
      lastError: expect.stringContaining('the shop database is down'),
      receivedAt: expect.any(Number),
    });
    expect(await shop.hook.redrive()).toEqual({ processed: 0, failed: 1, remaining: 1 });
    shop.mode = 'work';
    expect(await shop.hook.redrive()).toEqual({ processed: 1, failed: 0, remaining: 0 });
    expect(shop.times(tx.txHash)).toBe(1);
    expect(await shop.hook.unprocessed()).toEqual([]);
    // A late redelivery is a duplicate: the payment is handled once.
    expect(kudos.resend(sent[0]?.id ?? -1)).toBe(true);
    await kudos.idle();
    expect(shop.times(tx.txHash)).toBe(1);
  });

  it('a claim whose answer was lost (a master dying as it answered): released once the store answers, then processed', async () => {
    // The first claim is made in the store but its answer never comes; the release fails twice
    // (the failover still runs), then works.
    let lostAnswers = 1;
    let failedReleases = 2;
    class Failing extends MemoryDedupeStore {
      override async claim(key: string, leaseMs: number, claim: KudosClaimContext) {
        const answer = await super.claim(key, leaseMs, claim);
        if (lostAnswers-- > 0) throw new Error('Connection is closed');
        return answer;
      }
      override async release(key: string, claim: KudosClaimContext): Promise<void> {
        if (failedReleases-- > 0) throw new Error('Connection is closed');
        return super.release(key, claim);
      }
    }
    // The lease (60 s) outlasts the sender's schedule: only the release lets a redelivery claim.
    await setUp(
      { store: new Failing(), leaseMs: 60_000 },
      { webhook: { attempts: 5, retryDelayMs: 500, timeoutMs: 1000 } },
    );
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const sent = kudos.deliveries.filter((d) => d.txHash === tx.txHash && d.txStatus === 'success');
    expect(sent[0]?.responseStatus).toBe(503); // the lost answer
    expect(sent.at(-1)?.responseStatus).toBe(200);
    expect(shop.times(tx.txHash)).toBe(1);
    expect(await shop.hook.unprocessed()).toEqual([]);
  });

  it('a store that fails to mark a processed payment done (a failover): marked later, never run again by redrive()', async () => {
    // The store's complete() fails twice (Redis failing over), then works again.
    let failures = 2;
    class Failing extends MemoryDedupeStore {
      override async complete(key: string, ttlMs: number, claim: KudosClaimContext): Promise<void> {
        if (failures-- > 0) throw new Error('READONLY the master is gone');
        return super.complete(key, ttlMs, claim);
      }
    }
    const reports: string[] = [];
    await setUp({ store: new Failing(), onError: (error) => reports.push(error.code) });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    // Answered 200 at once: the handler ran, and the sender does not deliver it again.
    expect(
      kudos.deliveries
        .filter((d) => d.txHash === tx.txHash && d.txStatus === 'success')
        .map((d) => d.responseStatus),
    ).toEqual([200]);
    await expect.poll(() => failures, { timeout: 5000 }).toBeLessThan(0);
    expect(await shop.hook.unprocessed()).toEqual([]);
    expect(await shop.hook.redrive()).toEqual({ processed: 0, failed: 0, remaining: 0 });
    expect(shop.times(tx.txHash)).toBe(1);
    expect(reports).toEqual([]);
  });

  it('while a processed payment cannot be marked done, its key stays held: a redelivery and redrive() meanwhile run nothing', async () => {
    // complete() fails three times (about 1.75 s of retries), far past the 300 ms lease.
    let failures = 3;
    class Failing extends MemoryDedupeStore {
      override async complete(key: string, ttlMs: number, claim: KudosClaimContext): Promise<void> {
        if (failures-- > 0) throw new Error('OOM command not allowed when used memory > maxmemory');
        return super.complete(key, ttlMs, claim);
      }
    }
    await setUp({ store: new Failing() });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    await new Promise((resolve) => setTimeout(resolve, 600)); // two lease lengths later, still unmarked
    expect(failures).toBeGreaterThanOrEqual(0);
    const first = kudos.deliveries.find((d) => d.txHash === tx.txHash && d.txStatus === 'success');
    kudos.resend(first?.id as number);
    await kudos.idle();
    expect(kudos.deliveries.at(-1)?.responseStatus).toBe(409); // held: in_progress, not run again
    expect(await shop.hook.redrive()).toMatchObject({ processed: 0, failed: 0 });
    await expect.poll(() => failures, { timeout: 5000 }).toBeLessThan(0); // marked at last
    expect(await shop.hook.redrive()).toEqual({ processed: 0, failed: 0, remaining: 0 });
    expect(shop.times(tx.txHash)).toBe(1);
  });

  it('a handler that hangs: timed out, still kept when its lease ends, and processed by redrive()', async () => {
    await setUp();
    shop.mode = 'hang';
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const statuses = kudos.deliveries.filter((d) => d.txStatus === 'success').map((d) => d.responseStatus);
    expect(statuses.every((s) => s === 503 || s === 409)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 400)); // the last lease (300 ms) runs out
    const kept = await shop.hook.unprocessed();
    expect(kept.find((k) => k.txHash === tx.txHash && k.status === 'success')).toMatchObject({
      lastError: expect.stringContaining('handler_timeout'),
    });
    shop.mode = 'work';
    const result = await shop.hook.redrive();
    expect(result.failed).toBe(0);
    expect(shop.times(tx.txHash)).toBe(1);
    expect(await shop.hook.unprocessed()).toEqual([]);
  });

  it('a notification that never arrives: reconcileChain() processes it once, under the same key', async () => {
    await setUp();
    kudos.setWebhook('shop-agent', undefined); // the webhook is lost: nothing is delivered
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0.5' });
    await kudos.idle();
    expect(kudos.deliveries).toHaveLength(0);
    const chain = { wallet: kudos.walletOf('bobby'), restURL: kudos.chainURL };
    expect(await shop.hook.reconcileChain(chain)).toMatchObject({ processed: 1, duplicates: 0, failed: 0 });
    const [reconciled] = shop.handled.get(`${tx.txHash}:success`) ?? [];
    expect(reconciled?.source).toBe('reconcile');
    expect(reconciled?.metadata).toEqual({ raw: {} });
    expect(reconciled?.tx.amount.value).toBe(2_500_000_000n);
    expect(await shop.hook.reconcileChain({ ...chain, since: 0 })).toMatchObject({
      processed: 0,
      duplicates: 1,
    });
    // The webhook comes back and the service delivers after all: a duplicate.
    kudos.setWebhook('shop-agent', shop.url);
    const second = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    await shop.hook.reconcileChain(chain);
    expect([shop.times(tx.txHash), shop.times(second.txHash)]).toEqual([1, 1]);
  });

  it('reconcileChain() does not process a transfer older than the dedupe TTL: answered as stale', async () => {
    await setUp({ dedupeTtlMs: 250 });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect(shop.times(tx.txHash)).toBe(1);
    // At least the TTL later (a wait with no deadline: a slow machine only waits longer).
    await new Promise((resolve) => setTimeout(resolve, 1400));
    const result = await shop.hook.reconcileChain({
      wallet: kudos.walletOf('bobby'),
      restURL: kudos.chainURL,
      since: 0,
    });
    expect(result).toMatchObject({
      seen: 1,
      processed: 0,
      duplicates: 0,
      failed: 0,
      stale: 1,
      incomplete: false,
    });
    expect(shop.times(tx.txHash)).toBe(1); // not run again with paid: true
  });

  it('redrive() leaves a kept notification another delivery holds: not failed, still remaining, told in_progress', async () => {
    let holding = false;
    class Held extends MemoryDedupeStore {
      override async claim(key: string, leaseMs: number, claim: KudosClaimContext) {
        return holding ? 'processing' : super.claim(key, leaseMs, claim);
      }
    }
    const told: string[] = [];
    await setUp({ store: new Held(), onError: (error) => told.push(error.code) });
    shop.mode = 'fail';
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect(await shop.hook.unprocessed()).toHaveLength(1);
    shop.mode = 'work';
    holding = true; // a delivery of it is running on another instance
    told.length = 0;
    expect(await shop.hook.redrive()).toEqual({ processed: 0, failed: 0, remaining: 1 });
    expect(told).toEqual(['in_progress']);
    // Held for a while (the other run's lease): told once, not at every run of the schedule.
    for (let i = 0; i < 3; i++) {
      expect(await shop.hook.redrive()).toEqual({ processed: 0, failed: 0, remaining: 1 });
    }
    expect(told).toEqual(['in_progress']);
    holding = false;
    expect(await shop.hook.redrive()).toEqual({ processed: 1, failed: 0, remaining: 0 });
  });

  it('a kept notification whose holder died (its lease left behind) is redriven by itself once the lease ends', async () => {
    const store = new MemoryDedupeStore();
    const told: string[] = [];
    await setUp({ store, leaseMs: 400, onError: (error) => told.push(error.message) });
    shop.mode = 'fail';
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect(await shop.hook.unprocessed()).toHaveLength(1);
    // What a process killed while running it leaves: a claim under its token, never renewed again.
    expect(await store.claim(`${tx.txHash}:success`, 400, { token: 'a-killed-process', trusted: true })).toBe(
      'claimed',
    );
    shop.mode = 'work';
    told.length = 0;
    // The app's start-up redrive meets the lease: said as a holder that may be gone, and when it ends.
    expect(await shop.hook.redrive()).toEqual({ processed: 0, failed: 0, remaining: 1 });
    expect(told).toEqual([expect.stringMatching(/one whose process stopped\): its lease ends within 1 s/)]);
    // No further call of the app's: the receiver's own run once the lease ended processes it, once.
    await expect.poll(() => shop.times(tx.txHash)).toBe(1);
    await expect.poll(async () => (await shop.hook.unprocessed()).length).toBe(0);
  });

  it('a flood of forged notifications never evicts a real one: no payment is credited twice', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 200 });
    shop = await new Shop().start({ store, secret: false });
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: shop.server.url }],
      paymentDelayMs: 5,
    });
    await shop.server.close();
    shop = await new Shop().start({
      store,
      secret: false,
      confirm: cosmosConfirmer({ baseURL: kudos.baseURL, wallet: kudos.walletOf('bobby') }),
    });
    kudos.setWebhook('shop-agent', shop.server.url);
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect(shop.times(tx.txHash)).toBe(1);
    // 2,000 forged pending notifications (no secret: they cost nothing), ten times the store's size.
    const forged = (await (await fetch(`${kudos.baseURL}/tx/id/${tx.txHash}`)).json()) as Record<
      string,
      unknown
    >;
    for (let i = 0; i < 2000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, () =>
          deliver(shop.server.url, {
            tx: { ...forged, txHash: randomBytes(32).toString('hex').toUpperCase(), status: 'pending' },
            metadata: {},
          }),
        ),
      );
    }
    // Neither authenticated nor confirmed, a forged body closes no key: the store does not even fill.
    expect(store.evictions).toBe(0);
    // The real success is delivered again: still a duplicate.
    const first = kudos.deliveries.find((d) => d.txHash === tx.txHash && d.txStatus === 'success');
    kudos.resend(first?.id ?? -1);
    await kudos.idle();
    expect(kudos.deliveries.at(-1)?.responseStatus).toBe(200);
    expect(shop.times(tx.txHash)).toBe(1);
    // No forged body was kept: with no secret, only what the chain confirmed is kept for redrive().
    expect(await shop.hook.unprocessed()).toEqual([]);
  });
});
