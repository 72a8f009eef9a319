import { describe, expect, it } from 'vitest';
import { classifyStatusChange, type KudosTxStatus, MemoryDedupeStore } from '../../src/webhook/index.js';

describe('MemoryDedupeStore', () => {
  it('gives a key to one claimer until it expires, released or completed', async () => {
    let now = 1000;
    const store = new MemoryDedupeStore({ now: () => now });
    expect(await store.claim('k', 100)).toBe(true);
    expect(await store.claim('k', 100)).toBe(false);
    now += 100;
    expect(await store.claim('k', 100)).toBe(true); // the lease expired
    await store.release('k');
    expect(await store.claim('k', 100)).toBe(true);
    await store.complete('k', 10_000);
    now += 5000;
    expect(await store.claim('k', 100)).toBe(false);
  });

  it('gives one of many concurrent claims', async () => {
    const store = new MemoryDedupeStore();
    const results = await Promise.all(Array.from({ length: 50 }, () => store.claim('same', 1000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('stays within maxEntries, dropping expired keys first, then the oldest', async () => {
    let now = 0;
    const store = new MemoryDedupeStore({ maxEntries: 3, now: () => now });
    await store.claim('short', 10);
    await store.claim('a', 1000);
    await store.claim('b', 1000);
    now = 20;
    await store.claim('c', 1000);
    expect(store.size).toBe(3);
    expect(await store.claim('a', 1000)).toBe(false); // kept: only the expired key went
    await store.claim('d', 1000);
    expect(store.size).toBe(3);
    expect(await store.claim('b', 1000)).toBe(false);
    expect(await store.claim('a', 1000)).toBe(true); // the oldest, a, went
  });
});

describe('classifyStatusChange', () => {
  const all: KudosTxStatus[] = ['pending', 'success', 'fail', 'timeout'];
  const advances = new Set(['pending>success', 'pending>fail', 'pending>timeout', 'timeout>success']);

  it.each(all.flatMap((a) => all.map((b) => [a, b] as const)))('%s then %s', (previous, next) => {
    const expected = previous === next ? 'same' : advances.has(`${previous}>${next}`) ? 'advance' : 'stale';
    expect(classifyStatusChange(previous, next)).toBe(expected);
  });

  it('calls the first status of a transaction new', () => {
    for (const status of all) expect(classifyStatusChange(undefined, status)).toBe('new');
  });
});
