import { randomBytes } from 'node:crypto';
import { type StoreContractCase, same, sleep } from '../stores/contract-check.js';
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
const keep = (id: string, value: string, version: number | null = null) => ({
  id,
  version,
  value,
  ttlMs: 60_000,
  listed: false,
});
const list = (id: string, value: string, version: number | null = null) => ({
  id,
  version,
  value,
  ttlMs: null,
  listed: true,
});

/**
 * The cases every {@link KudosOrderStore} must pass: inserts that only the first writer makes,
 * versions that only a reader of the current one may change (never two writers at once), several
 * changes applied all or none, TTLs, and the listed records in the order they were first listed.
 * `makeStore` answers a store (a fresh one, or one shared by the cases: every case uses IDs of its
 * own; the listing case expects no other listed records).
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
        same(await store.write([keep(id, 'first')]), true, 'first insert');
        same(await store.write([keep(id, 'second')]), false, 'second insert of the same id');
        same(await store.read(id), { value: 'first', version: 1 }, 'read after insert');
        same(await store.read(newId()), undefined, 'read of an id never written');
      },
    },
    {
      name: 'changes only at the version read, one version more each time',
      run: async () => {
        const store = await makeStore();
        const id = newId();
        await store.write([keep(id, 'v1')]);
        same(await store.write([keep(id, 'v2', 1)]), true, 'change at version 1');
        same(await store.write([keep(id, 'stale', 1)]), false, 'change at a stale version');
        same(await store.read(id), { value: 'v2', version: 2 }, 'read after the change');
        same(await store.write([keep(newId(), 'x', 1)]), false, 'change of an id never written');
      },
    },
    {
      name: 'of writers that read the same version, exactly one changes the record',
      run: async () => {
        const store = await makeStore();
        const id = newId();
        await store.write([keep(id, 'open')]);
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.write([keep(id, `writer ${i}`, 1)])),
        );
        same(answers.filter(Boolean).length, 1, 'writes that succeeded');
        same(await store.read(id), { value: `writer ${answers.indexOf(true)}`, version: 2 }, 'the winner');
      },
    },
    {
      name: 'writes asked for at once are each all or none, and one refused undoes no other',
      run: async () => {
        const store = await makeStore();
        const [order, payment, taken, fresh] = [newId(), newId(), newId(), newId()];
        await store.write([keep(order, 'open'), keep(taken, 'taken')]);
        const answers = await Promise.all([
          store.write([keep(order, 'paid', 1), keep(payment, 'credited')]),
          store.write([keep(fresh, 'new'), keep(taken, 'again')]),
          store.write([keep(fresh, 'alone')]),
        ]);
        same(answers, [true, false, true], 'the answers, in order');
        same(await store.read(payment), { value: 'credited', version: 1 }, 'the first write');
        same(await store.read(taken), { value: 'taken', version: 1 }, 'the refused write changed nothing');
        same(
          await store.read(fresh),
          { value: 'alone', version: 1 },
          'the third write, after the refused one',
        );
      },
    },
    {
      name: 'applies several changes all or none',
      run: async () => {
        const store = await makeStore();
        const [order, payment, other] = [newId(), newId(), newId()];
        await store.write([keep(order, 'open'), keep(other, 'taken')]);
        // The order at its version, and a new record: both.
        same(await store.write([keep(order, 'paid', 1), keep(payment, 'credited')]), true, 'both');
        same(await store.read(payment), { value: 'credited', version: 1 }, 'the new record');
        // One of them stale (or already there): neither.
        same(
          await store.write([keep(order, 'again', 2), keep(other, 'new')]),
          false,
          'an insert of a taken id',
        );
        same(await store.write([keep(order, 'stale', 1), keep(newId(), 'new')]), false, 'a stale version');
        same(await store.read(order), { value: 'paid', version: 2 }, 'the order, unchanged by either');
        same(await store.read(other), { value: 'taken', version: 1 }, 'the other, unchanged');
      },
    },
    {
      name: 'a record is gone after its TTL, and may be inserted again; null keeps it',
      run: async () => {
        const store = await makeStore();
        const [id, kept] = [newId(), newId()];
        await store.write([
          { ...keep(id, 'short'), ttlMs: shortMs },
          { ...keep(kept, 'kept'), ttlMs: null },
        ]);
        await pass(shortMs * 2);
        same(await store.read(id), undefined, 'read after the TTL');
        same(await store.write([keep(id, 'late', 1)]), false, 'change after the TTL');
        same(await store.write([keep(id, 'again')]), true, 'insert after the TTL');
        same(await store.read(kept), { value: 'kept', version: 1 }, 'a record without a TTL');
      },
    },
    {
      name: 'lists the listed records in the order first listed, until changed unlisted',
      run: async () => {
        const store = await makeStore();
        const [a, b, c] = [newId(), newId(), newId()];
        for (const id of [a, b, c]) {
          await store.write([list(id, id)]);
          await pass(2); // distinct listing times for stores that order by time
        }
        await store.write([keep(newId(), 'not listed')]);
        same(await store.write([keep(b, 'b seen', 1)]), true, 'unlist b');
        same(await store.write([list(a, 'a again', 1)]), true, 'change a, still listed');
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
        same(await store.write([keep(a, 'done', 2), keep(c, 'done', 1)]), true, 'unlist both');
        same(await store.listed(10), [], 'listed once all are unlisted');
      },
    },
    {
      name: 'counts the listed records of a kind, and the oldest one’s listing time (listedCount, when it has one)',
      run: async () => {
        const store = await makeStore();
        if (!store.listedCount) return; // optional: status() then reads through listed()
        const kind = `k${randomBytes(4).toString('hex')}:`;
        same(await store.listedCount(kind), { count: 0, oldestListedAt: null }, 'none of the kind yet');
        const [a, b, c] = [`${kind}a`, `${kind}b`, `${kind}c`];
        await store.write([list(a, 'a')]);
        await pass(2);
        const other = newId();
        await store.write([list(b, 'b'), list(other, 'another kind')]);
        await store.write([{ ...list(c, 'c'), ttlMs: shortMs }]);
        const counted = await store.listedCount(kind);
        same(counted.count, 3, 'three of the kind listed');
        same(Number.isFinite(counted.oldestListedAt), true, 'the oldest listing time is a time');
        same(await store.write([keep(a, 'a seen', 1)]), true, 'unlist a, the oldest');
        const after = await store.listedCount(kind);
        same(after.count, 2, 'two left');
        same(
          (after.oldestListedAt ?? 0) > (counted.oldestListedAt ?? 0),
          true,
          'b is the oldest now, listed later',
        );
        await pass(shortMs + 50); // c expires
        same((await store.listedCount(kind)).count, 1, 'unlisted and expired ones not counted');
        await store.write([keep(b, 'done', 1), keep(other, 'done', 1)]); // leaves nothing listed
      },
    },
  ];
}
