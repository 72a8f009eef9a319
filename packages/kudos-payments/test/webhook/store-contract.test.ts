import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeSqlite } from '../../../../test/helpers/sqlite.js';
import {
  type KudosClaimContext,
  type KudosOrderStoreChange,
  MemoryDedupeStore,
  MemoryOrderStore,
} from '../../src/index.js';
import { SqliteDedupeStore, SqliteOrderStore } from '../../src/sqlite/index.js';
import { dedupeStoreContract, orderStoreContract } from '../../src/testing/index.js';

/** A clock of the test's: the stores read it, the contract moves it on instead of waiting. */
function testClock() {
  let t = Date.UTC(2026, 0, 1);
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

// One contract, written once (src/webhook/stores/store-contract.ts, exported from kudos-payments/testing),
// run against each store: ownership, lease expiry, TTL, concurrency, unprocessed notifications. The
// stores that take a clock run it on the test's clock (no wall-clock wait); RedisDedupeStore, whose
// expiries Redis keeps, runs it on each client and topology in test/redis/topologies/.
describe('the dedupe store contract: MemoryDedupeStore', () => {
  const clock = testClock();
  for (const c of dedupeStoreContract(() => new MemoryDedupeStore({ maxEntries: 100, now: clock.now }), {
    maxEntries: 100,
    advance: clock.advance,
  })) {
    it(c.name, c.run);
  }
});

describeSqlite('the dedupe store contract: SqliteDedupeStore (a real file, node:sqlite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-sqlite-contract-'));
  const stores: SqliteDedupeStore[] = [];
  const clock = testClock();
  afterAll(() => {
    for (const store of stores) store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // One file for every case, as one app has: each case opens its own connection to it.
  for (const c of dedupeStoreContract(
    () => {
      const store = new SqliteDedupeStore({ path: join(dir, 'dedupe.db'), now: clock.now });
      stores.push(store);
      return store;
    },
    { advance: clock.advance },
  )) {
    it(c.name, c.run);
  }
});

describe('the contract fails a store that breaks it', () => {
  it('catches a store that lets anyone complete a key', async () => {
    class Careless extends MemoryDedupeStore {
      /** Who claimed each key, as the store was told. */
      private readonly holders = new Map<string, string>();
      override async claim(key: string, leaseMs: number, claim: KudosClaimContext) {
        const answer = await super.claim(key, leaseMs, claim);
        if (answer === 'claimed') this.holders.set(key, claim.token);
        return answer;
      }
      override complete(key: string, ttlMs: number, claim: KudosClaimContext): Promise<void> {
        // Completes as whoever holds the key: no ownership check.
        return super.complete(key, ttlMs, { ...claim, token: this.holders.get(key) ?? claim.token });
      }
    }
    const ownership = dedupeStoreContract(() => new Careless()).find((c) =>
      c.name.startsWith('complete and release'),
    );
    await expect(ownership?.run()).rejects.toThrow(/still holds it/);
  });

  it('catches a store without keep() and kept()', async () => {
    const bare = {
      claim: async () => 'claimed' as const,
      complete: async () => undefined,
      release: async () => undefined,
    };
    const keeping = dedupeStoreContract(() => bare).find((c) =>
      c.name.startsWith('keeps unprocessed notifications'),
    );
    await expect(keeping?.run()).rejects.toThrow(/keep\(\) and kept\(\)/);
  });
});

describe('MemoryDedupeStore: untrusted keys never evict trusted ones', () => {
  const token = (trusted: boolean) => ({ token: randomUUID(), trusted });

  it('a flood of untrusted completions evicts only untrusted keys', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 10 });
    const real = 'REAL:success';
    const owner = token(true);
    await store.claim(real, 60_000, owner);
    await store.complete(real, 60_000, owner);
    for (let i = 0; i < 1000; i++) {
      const forged = token(false);
      expect(await store.claim(`F${i}:pending`, 60_000, forged)).toBe('claimed');
      await store.complete(`F${i}:pending`, 60_000, forged);
    }
    expect(await store.claim(real, 60_000, token(false))).toBe('done');
    expect(store.evictions).toBe(991);
  });

  it('refuses an untrusted claim when only trusted keys could make room; a trusted one evicts the oldest', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 3 });
    for (const key of ['A', 'B', 'C']) {
      const owner = token(true);
      await store.claim(key, 60_000, owner);
      await store.complete(key, 60_000, owner);
    }
    await expect(store.claim('FORGED', 60_000, token(false))).rejects.toThrow(/full of trusted keys/);
    expect(await store.claim('D', 60_000, token(true))).toBe('claimed');
    expect(await store.claim('A', 60_000, token(true))).toBe('claimed'); // A was the oldest: evicted
  });
});

// The order store contract (src/webhook/payments/order-store-contract.ts, exported from
// kudos-payments/testing), run against the memory and SQLite order stores; RedisOrderStore runs it on
// each client and topology in test/redis/topologies/.
describe('the order store contract: MemoryOrderStore', () => {
  const clock = testClock();
  for (const c of orderStoreContract(() => new MemoryOrderStore({ now: clock.now }), {
    advance: clock.advance,
  })) {
    it(c.name, c.run);
  }
});

describeSqlite('the order store contract: SqliteOrderStore (a real file, node:sqlite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-sqlite-orders-'));
  const stores: SqliteOrderStore[] = [];
  const clock = testClock();
  afterAll(() => {
    for (const store of stores) store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // A file per case (the listing cases expect no other listed records), shared with a dedupe store.
  for (const c of orderStoreContract(
    () => {
      const path = join(dir, `${randomUUID()}.db`);
      const store = new SqliteOrderStore({ path, now: clock.now });
      new SqliteDedupeStore({ path }).close();
      stores.push(store);
      return store;
    },
    { advance: clock.advance },
  )) {
    it(c.name, c.run);
  }
});

describe('the order store contract fails a store that breaks it', () => {
  it('catches a store whose write ignores the version', async () => {
    class Careless extends MemoryOrderStore {
      override async write(changes: readonly KudosOrderStoreChange[]): Promise<boolean> {
        const current = await Promise.all(changes.map((c) => this.read(c.id)));
        return super.write(changes.map((c, i) => ({ ...c, version: current[i]?.version ?? null })));
      }
    }
    const versions = orderStoreContract(() => new Careless()).find((c) => c.name.startsWith('changes only'));
    await expect(versions?.run()).rejects.toThrow(/stale version/);
  });
});
