import { describe, expect, it } from 'vitest';
import { MemoryDedupeStore } from '../../../src/webhook/index.js';

describe('MemoryDedupeStore', () => {
  it('gives a key to one claimer until its lease expires, it is released, or completed', async () => {
    let now = 1000;
    const store = new MemoryDedupeStore({ now: () => now });
    expect(await store.claim('k', 100)).toBe('claimed');
    expect(await store.claim('k', 100)).toBe('processing');
    now += 100;
    expect(await store.claim('k', 100)).toBe('claimed'); // the lease expired
    await store.release('k');
    expect(await store.claim('k', 100)).toBe('claimed');
    await store.complete('k', 10_000);
    now += 5000;
    expect(await store.claim('k', 100)).toBe('done');
    now += 5000;
    expect(await store.claim('k', 100)).toBe('claimed'); // the dedupe TTL ended
  });

  it('renews a lease that is still held', async () => {
    let now = 0;
    const store = new MemoryDedupeStore({ now: () => now });
    await store.claim('k', 100);
    now = 90;
    await store.extend('k', 100);
    now = 150;
    expect(await store.claim('k', 100)).toBe('processing');
    await store.extend('unknown', 100); // not held: nothing to renew
    expect(store.size).toBe(1);
  });

  it('gives one of many concurrent claims', async () => {
    const store = new MemoryDedupeStore();
    const results = await Promise.all(Array.from({ length: 50 }, () => store.claim('same', 1000)));
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
  });

  it('stays within maxEntries: expired keys go first, then the oldest completed key, counted', async () => {
    let now = 0;
    const evicted: string[] = [];
    const store = new MemoryDedupeStore({ maxEntries: 3, now: () => now, onEvict: (k) => evicted.push(k) });
    await store.claim('short', 10);
    for (const key of ['a', 'b']) {
      await store.claim(key, 10);
      await store.complete(key, 1000);
    }
    now = 20;
    await store.claim('c', 1000);
    expect(store.size).toBe(3);
    expect(store.evictions).toBe(0); // the expired lease made room
    expect(await store.claim('a', 1000)).toBe('done');
    await store.claim('d', 1000);
    expect(store.size).toBe(3);
    expect(store.evictions).toBe(1);
    expect(evicted).toEqual(['a']); // the oldest completed key, inside its TTL: told, not silent
    expect(await store.claim('b', 1000)).toBe('done');
    expect(await store.claim('c', 1000)).toBe('processing'); // leases are kept before completed keys
  });

  it('refuses a maxEntries that is not a whole number of 1 or more', () => {
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      expect(() => new MemoryDedupeStore({ maxEntries })).toThrow(TypeError);
    }
  });

  it('evicts the oldest completed key once full, one per new key, over many keys', async () => {
    let now = 0;
    const store = new MemoryDedupeStore({ maxEntries: 1000, now: () => now });
    for (let i = 0; i < 100_000; i++) {
      now++;
      await store.claim(`k${i}`, 10);
      await store.complete(`k${i}`, 100_000);
    }
    expect(store.size).toBe(1000);
    expect(store.evictions).toBe(100_000 - 1000);
    expect(await store.claim('k99999', 10)).toBe('done');
    expect(await store.claim('k0', 10)).toBe('claimed');
  });
});
