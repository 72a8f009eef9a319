import { randomBytes } from 'node:crypto';
import type { KudosClaimContext, KudosDedupeStore, KudosKeptNotification } from '../core/dedupe.js';
import { check, type StoreContractCase, same, sleep } from './contract-check.js';
import { KEPT_MERGE_CASES } from './kept-record.js';

/** One case of {@link dedupeStoreContract}: run it in any test runner; it rejects on a failure. */
export type DedupeStoreContractCase = StoreContractCase;

/** Options of {@link dedupeStoreContract}. */
export interface DedupeStoreContractOptions {
  /** Lease and TTL of the cases that wait for an expiry, in milliseconds; default 150. */
  shortMs?: number;
  /**
   * How the cases let time pass: by default they wait on the wall clock. A store that takes a
   * clock (`now`, as MemoryDedupeStore and SqliteDedupeStore do) is tested without waiting: give
   * `makeStore` a clock of the test's, and here a function that moves it on by `ms`.
   */
  advance?: (ms: number) => void | Promise<void>;
  /**
   * For a store that evicts when full: the size `makeStore` gives it. Adds the eviction case: a flood
   * of untrusted keys never evicts a trusted one inside its TTL.
   */
  maxEntries?: number;
}

const holder = (trusted = true): KudosClaimContext => ({
  token: randomBytes(12).toString('base64url'),
  trusted,
});
const uniqueKey = () => `${randomBytes(32).toString('hex').toUpperCase()}:success`;

function record(key: string, overrides: Partial<KudosKeptNotification> = {}): KudosKeptNotification {
  return {
    key,
    txHash: key.split(':')[0] as string,
    status: 'success',
    attempts: 1,
    lastError: null,
    receivedAt: Date.now(),
    body: { tx: { txHash: key.split(':')[0] } },
    source: 'webhook',
    trusted: true,
    ...overrides,
  };
}

/**
 * The contract every `KudosDedupeStore` keeps, as runnable cases: atomic claims, leases, ownership,
 * TTL, and (when the store has `keep()`/`kept()`) the unprocessed notifications. kudos-payments runs
 * it against `MemoryDedupeStore` and `RedisDedupeStore`; run it against your own store:
 *
 * @example
 * ```ts
 * import { dedupeStoreContract } from 'kudos-payments/testing';
 * import { MemoryDedupeStore } from 'kudos-payments';
 * import { it } from 'vitest';
 * for (const c of dedupeStoreContract(() => new MemoryDedupeStore())) it(c.name, c.run); // your store here
 * ```
 *
 * `makeStore` is called once per case; cases use fresh random keys, so one shared backend is fine.
 * Some cases wait for a lease or TTL to expire (`shortMs`, default 150 ms), on the wall clock or
 * through `advance`; none depends on finishing a step within a deadline.
 */
export function dedupeStoreContract(
  makeStore: () => KudosDedupeStore | Promise<KudosDedupeStore>,
  options: DedupeStoreContractOptions = {},
): DedupeStoreContractCase[] {
  const short = options.shortMs ?? 150;
  const long = 60_000;
  const wait = async (ms: number) => (options.advance ? options.advance(ms) : sleep(ms));
  // A lease that must still hold at the next step: wide enough for a loaded machine on the wall
  // clock (a second), and still short against the waits that follow it.
  const holds = options.advance ? short : 1000;
  const cases: DedupeStoreContractCase[] = [
    {
      name: 'claims a key once among 20 concurrent callers; the others see processing',
      async run() {
        const store = await makeStore();
        const key = uniqueKey();
        const answers = await Promise.all(Array.from({ length: 20 }, () => store.claim(key, long, holder())));
        same(answers.filter((a) => a === 'claimed').length, 1, 'claimed answers');
        same(answers.filter((a) => a === 'processing').length, 19, 'processing answers');
      },
    },
    {
      name: 'answers done after complete, until the TTL ends; then the key may be claimed again',
      async run() {
        const store = await makeStore();
        const key = uniqueKey();
        const a = holder();
        same(await store.claim(key, long, a), 'claimed', 'first claim');
        await store.complete(key, holds, a);
        same(await store.claim(key, long, holder()), 'done', 'claim after complete');
        await wait(holds + short);
        same(await store.claim(key, long, holder()), 'claimed', 'claim after the TTL');
      },
    },
    {
      name: 'lets a key be claimed again once its lease ran out',
      async run() {
        const store = await makeStore();
        const key = uniqueKey();
        same(await store.claim(key, short, holder()), 'claimed', 'first claim');
        await wait(short * 2);
        same(await store.claim(key, long, holder()), 'claimed', 'claim after the lease');
      },
    },
    {
      name: 'release lets a redelivery claim at once',
      async run() {
        const store = await makeStore();
        const key = uniqueKey();
        const a = holder();
        await store.claim(key, long, a);
        await store.release(key, a);
        same(await store.claim(key, long, holder()), 'claimed', 'claim after release');
      },
    },
    {
      name: 'complete and release act only for the token that holds the key',
      async run() {
        const store = await makeStore();
        const key = uniqueKey();
        const a = holder();
        const b = holder();
        await store.claim(key, short, a);
        await wait(short * 2); // a's lease ran out
        same(await store.claim(key, long, b), 'claimed', "b's claim after a's lease");
        await store.release(key, a);
        same(await store.claim(key, long, holder()), 'processing', "after a's release, b still holds it");
        await store.complete(key, long, a);
        same(await store.claim(key, long, holder()), 'processing', "after a's complete, b still holds it");
        await store.complete(key, long, b);
        same(await store.claim(key, long, holder()), 'done', "after b's complete");
      },
    },
    {
      name: "extend renews the holder's lease, and no one else's",
      async run() {
        const store = await makeStore();
        if (!store.extend) return;
        const key = uniqueKey();
        const a = holder();
        await store.claim(key, holds, a);
        await store.extend(key, long, a);
        await wait(holds + short);
        same(await store.claim(key, long, holder()), 'processing', 'claim after an extended lease');
        const other = uniqueKey();
        await store.claim(other, short, holder());
        await store.extend(other, long, holder());
        await wait(short * 2);
        same(await store.claim(other, long, holder()), 'claimed', 'claim after a stranger extended');
      },
    },
  ];
  // The merge rule of kept records, one case per row of the one table every store is held to.
  const merging: DedupeStoreContractCase[] = KEPT_MERGE_CASES.map((c) => ({
    name: `keeps unprocessed notifications: ${c.name}`,
    async run() {
      const store = await makeStore();
      const { keep, kept } = keeper(store);
      const key = uniqueKey();
      for (const step of c.keeps) await keep(record(key, { receivedAt: 1000, ...step }), long);
      const mine = (await kept(1_000_000)).find((r) => r.key === key);
      check(mine !== undefined, 'the kept notification is listed');
      for (const field of ['attempts', 'lastError', 'receivedAt', 'trusted'] as const) {
        same(mine?.[field], c.expected[field], field);
      }
      same(JSON.stringify(mine?.body), JSON.stringify(record(key).body), 'body');
    },
  }));
  const keeping: DedupeStoreContractCase[] = [
    ...merging,
    {
      name: 'forgets a kept notification when its key completes, and keeps nothing for a done key',
      async run() {
        const store = await makeStore();
        const { keep, kept } = keeper(store);
        const key = uniqueKey();
        const a = holder();
        await store.claim(key, long, a);
        await keep(record(key), long);
        await store.complete(key, long, a);
        check(!(await kept(1_000_000)).some((r) => r.key === key), 'not listed after complete');
        await keep(record(key, { attempts: 0, lastError: 'late failure' }), long);
        check(!(await kept(1_000_000)).some((r) => r.key === key), 'a done key keeps nothing');
      },
    },
    {
      name: 'lets kept notifications expire with their TTL, and lists them oldest first',
      async run() {
        const store = await makeStore();
        const { keep, kept } = keeper(store);
        const gone = uniqueKey();
        await keep(record(gone), short);
        const [older, newer] = [uniqueKey(), uniqueKey()];
        await keep(record(newer, { receivedAt: 2000 }), long);
        await keep(record(older, { receivedAt: 1000 }), long);
        await wait(short * 2);
        const list = (await kept(1_000_000)).map((r) => r.key);
        check(!list.includes(gone), 'an expired one is not listed');
        check(list.indexOf(older) !== -1 && list.indexOf(older) < list.indexOf(newer), 'oldest first');
      },
    },
  ];
  // A store with checkpoints (reconcileChain() remembers with them how far it read the chain).
  const checkpoints: DedupeStoreContractCase[] = [
    {
      name: 'saves a checkpoint, answers it back and replaces it; null for a name never saved',
      async run() {
        const store = await makeStore();
        if (!store.checkpoint || !store.saveCheckpoint) return;
        const name = `contract:${randomBytes(8).toString('hex')}`;
        same(await store.checkpoint(name), null, 'a name never saved');
        await store.saveCheckpoint(name, '{"v":1,"done":7}', long);
        same(await store.checkpoint(name), '{"v":1,"done":7}', 'the value saved');
        await store.saveCheckpoint(name, '{"v":1,"done":9}', long);
        same(await store.checkpoint(name), '{"v":1,"done":9}', 'the value saved last');
      },
    },
    {
      name: 'forgets a checkpoint when its TTL ends',
      async run() {
        const store = await makeStore();
        if (!store.checkpoint || !store.saveCheckpoint) return;
        const name = `contract:${randomBytes(8).toString('hex')}`;
        await store.saveCheckpoint(name, 'x', short);
        await wait(short * 2);
        same(await store.checkpoint(name), null, 'an expired checkpoint');
      },
    },
  ];
  const evicting: DedupeStoreContractCase[] =
    options.maxEntries === undefined
      ? []
      : [
          {
            name: 'never lets untrusted keys evict a trusted one inside its TTL, even ten times the size',
            async run() {
              const store = await makeStore();
              const real = uniqueKey();
              const owner = holder(true);
              await store.claim(real, long, owner);
              await store.complete(real, long, owner);
              for (let i = 0; i < (options.maxEntries ?? 0) * 10; i++) {
                const forged = holder(false);
                const key = uniqueKey();
                const answer = await store.claim(key, long, forged).catch(() => 'refused' as const);
                if (answer === 'claimed') await store.complete(key, long, forged);
              }
              same(await store.claim(real, long, holder(false)), 'done', 'the trusted key after the flood');
            },
          },
        ];
  return [...cases, ...keeping, ...checkpoints, ...evicting];
}

function keeper(store: KudosDedupeStore) {
  const keep = store.keep?.bind(store);
  const kept = store.kept?.bind(store);
  check(
    keep !== undefined && kept !== undefined,
    'the store has no keep() and kept(): unprocessed() and redrive() need them',
  );
  return { keep, kept };
}
