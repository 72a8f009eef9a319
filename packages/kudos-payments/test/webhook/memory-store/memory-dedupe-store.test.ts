import { describe, expect, it } from 'vitest';
import { MemoryDedupeStore } from '../../../src/index.js';

/** The claim context of a claimer named `token` (each claimer holds its own). */
const by = (token: string) => ({ token, trusted: true });

describe('MemoryDedupeStore', () => {
  it('gives a key to one claimer until its lease expires, it is released, or completed', async () => {
    let now = 1000;
    const store = new MemoryDedupeStore({ now: () => now });
    expect(await store.claim('k', 100, by('a'))).toBe('claimed');
    expect(await store.claim('k', 100, by('b'))).toBe('processing');
    now += 100;
    expect(await store.claim('k', 100, by('c'))).toBe('claimed'); // the lease expired
    await store.release('k', by('c'));
    expect(await store.claim('k', 100, by('d'))).toBe('claimed');
    await store.complete('k', 10_000, by('d'));
    now += 5000;
    expect(await store.claim('k', 100, by('e'))).toBe('done');
    now += 5000;
    expect(await store.claim('k', 100, by('f'))).toBe('claimed'); // the dedupe TTL ended
  });

  it('renews a lease that is still held', async () => {
    let now = 0;
    const store = new MemoryDedupeStore({ now: () => now });
    await store.claim('k', 100, by('a'));
    now = 90;
    await store.extend('k', 100, by('a'));
    now = 150;
    expect(await store.claim('k', 100, by('b'))).toBe('processing');
    await store.extend('unknown', 100, by('a')); // not held: nothing to renew
    expect(store.size).toBe(1);
  });

  it('gives one of many concurrent claims', async () => {
    const store = new MemoryDedupeStore();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.claim('same', 1000, by(`c${i}`))),
    );
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
  });

  it('stays within maxEntries: expired keys go first, then the oldest completed key, counted', async () => {
    let now = 0;
    const evicted: string[] = [];
    const store = new MemoryDedupeStore({ maxEntries: 3, now: () => now, onEvict: (k) => evicted.push(k) });
    await store.claim('short', 10, by('s'));
    for (const key of ['a', 'b']) {
      await store.claim(key, 10, by(key));
      await store.complete(key, 1000, by(key));
    }
    now = 20;
    await store.claim('c', 1000, by('c'));
    expect(store.size).toBe(3);
    expect(store.evictions).toBe(0); // the expired lease made room
    expect(await store.claim('a', 1000, by('x'))).toBe('done');
    await store.claim('d', 1000, by('d'));
    expect(store.size).toBe(3);
    expect(store.evictions).toBe(1);
    expect(evicted).toEqual(['a']); // the oldest completed key, inside its TTL: told, not silent
    expect(await store.claim('b', 1000, by('y'))).toBe('done');
    expect(await store.claim('c', 1000, by('z'))).toBe('processing'); // leases are kept before completed keys
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
      await store.claim(`k${i}`, 10, by(`k${i}`));
      await store.complete(`k${i}`, 100_000, by(`k${i}`));
    }
    expect(store.size).toBe(1000);
    expect(store.evictions).toBe(100_000 - 1000);
    expect(await store.claim('k99999', 10, by('x'))).toBe('done');
    expect(await store.claim('k0', 10, by('x'))).toBe('claimed');
  });

  it('refuses a call without its claim context: there would be no owner to check', async () => {
    const store = new MemoryDedupeStore();
    const missing = undefined as unknown as ReturnType<typeof by>;
    for (const call of [
      () => store.claim('k', 100, missing),
      () => store.complete('k', 100, missing),
      () => store.release('k', missing),
      () => store.extend('k', 100, { token: '', trusted: true }),
    ]) {
      await expect(call()).rejects.toThrow(
        'MemoryDedupeStore: claim(), complete(), release() and extend() need the claim context ({ token, trusted }) the receiver passes',
      );
    }
    expect(store.size).toBe(0);
  });
});
