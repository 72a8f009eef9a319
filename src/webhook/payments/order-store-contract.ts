import { randomBytes } from 'node:crypto';
import { type StoreContractCase, same, sleep } from '../contract-check.js';
import type { KudosOrderStore } from './order-store.js';

/** One case of {@link orderStoreContract}: run it in any test runner; it rejects on a failure. */
export type OrderStoreContractCase = StoreContractCase;

/** Options of {@link orderStoreContract}. */
export interface OrderStoreContractOptions {
  /** TTL of the cases that wait for an expiry, in milliseconds; default 150. */
  shortMs?: number;
  /**
   * How the cases let time pass: by default they wait on the wall clock. A store that takes a clock
   * (`now`) is tested without waiting: give `makeStore` a clock of the test's, and here a function
   * that moves it on by `ms`.
   */
  advance?: (ms: number) => void | Promise<void>;
}

const newId = () => `contract:${randomBytes(12).toString('hex')}`;
const KEEP = { ttlMs: 60_000, listed: false };
const LIST = { ttlMs: null, listed: true };

/**
 * The cases every {@link KudosOrderStore} must pass: insert-if-absent, versions that only a reader
 * of the current one may replace (never two writers at once), TTLs, and the listed records in the
 * order they were first listed. `makeStore` answers a store (a fresh one, or one shared by the
 * cases: every case uses keys of its own; listing cases expect no other listed records).
 */
export function orderStoreContract(
  makeStore: () => KudosOrderStore | Promise<KudosOrderStore>,
  options: OrderStoreContractOptions = {},
): OrderStoreContractCase[] {
  const shortMs = options.shortMs ?? 150;
  const pass = options.advance ?? sleep;
  return [
    {
      name: 'inserts a record once, at version 1',
      run: async () => {
        const store = await makeStore();
        const id = newId();
        same(await store.insert(id, 'first', KEEP), true, 'first insert');
        same(await store.insert(id, 'second', KEEP), false, 'second insert of the same id');
        same(await store.read(id), { value: 'first', version: 1 }, 'read after insert');
        same(await store.read(newId()), undefined, 'read of an id never written');
      },
    },
    {
      name: 'replaces only at the version read, one version more each time',
      run: async () => {
        const store = await makeStore();
        const id = newId();
        await store.insert(id, 'v1', KEEP);
        same(await store.replace(id, 1, 'v2', KEEP), true, 'replace at version 1');
        same(await store.replace(id, 1, 'stale', KEEP), false, 'replace at a stale version');
        same(await store.read(id), { value: 'v2', version: 2 }, 'read after replace');
        same(await store.replace(newId(), 1, 'x', KEEP), false, 'replace of an id never written');
      },
    },
    {
      name: 'of writers that read the same version, exactly one replaces',
      run: async () => {
        const store = await makeStore();
        const id = newId();
        await store.insert(id, 'open', KEEP);
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.replace(id, 1, `writer ${i}`, KEEP)),
        );
        same(answers.filter(Boolean).length, 1, 'replaces that succeeded');
        const winner = answers.indexOf(true);
        same(await store.read(id), { value: `writer ${winner}`, version: 2 }, 'the winner is stored');
      },
    },
    {
      name: 'a record is gone after its TTL, and may be inserted again; null keeps it',
      run: async () => {
        const store = await makeStore();
        const id = newId();
        const kept = newId();
        await store.insert(id, 'short', { ttlMs: shortMs, listed: false });
        await store.insert(kept, 'kept', { ttlMs: null, listed: false });
        await pass(shortMs * 2);
        same(await store.read(id), undefined, 'read after the TTL');
        same(await store.replace(id, 1, 'late', KEEP), false, 'replace after the TTL');
        same(await store.insert(id, 'again', KEEP), true, 'insert after the TTL');
        same(await store.read(kept), { value: 'kept', version: 1 }, 'a record without a TTL');
      },
    },
    {
      name: 'lists the listed records in the order first listed, until replaced unlisted',
      run: async () => {
        const store = await makeStore();
        const [a, b, c] = [newId(), newId(), newId()];
        for (const id of [a, b, c]) {
          await store.insert(id, id, LIST);
          await pass(2); // distinct listing times for stores that order by time
        }
        await store.insert(newId(), 'not listed', KEEP);
        same(await store.replace(b, 1, 'b seen', { ttlMs: 60_000, listed: false }), true, 'unlist b');
        same(await store.replace(a, 1, 'a again', LIST), true, 'replace a, still listed');
        same(
          await store.listed(10),
          [
            { id: a, value: 'a again' },
            { id: c, value: c },
          ],
          'listed',
        );
        same(await store.listed(1), [{ id: a, value: 'a again' }], 'listed with a limit of 1');
        same(await store.listed(0), [], 'listed with a limit of 0');
        for (const id of [a, c]) await store.replace(id, (await store.read(id))?.version ?? 0, 'done', KEEP);
        same(await store.listed(10), [], 'listed once all are unlisted');
      },
    },
  ];
}
