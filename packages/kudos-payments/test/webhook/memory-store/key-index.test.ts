import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiryQueue } from '../../../src/stores/memory/expiry-queue.js';
import { hashKey } from '../../../src/stores/memory/key-hash.js';
import { KeyIndex } from '../../../src/stores/memory/key-index.js';

/** Hash functions from the worst (every key in one probe chain) to the real one. */
const HASHES: Record<string, (key: string) => number> = {
  'one hash for every key': () => 7,
  'four hashes': (key) => key.length % 4,
  'the seeded hash': (key) => hashKey(key, 12345),
};
const key = fc.stringMatching(/^[a-f]{1,6}$/);
/** Position of the first key of the caller's array: positions are the caller's, not array indexes. */
const BASE = 1000;

describe('KeyIndex', () => {
  for (const [name, hash] of Object.entries(HASHES)) {
    it(`answers as a Map does, through removals and rebuilds (${name})`, () => {
      const op = fc.oneof(
        fc.record({ kind: fc.constant('put' as const), key }),
        fc.record({ kind: fc.constant('remove' as const), key }),
        fc.record({ kind: fc.constant('removeAt' as const), key }),
      );
      fc.assert(
        fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
          const index = new KeyIndex();
          const model = new Map<string, number>();
          const keys: string[] = [];
          const records = { holds: (at: number, key: string) => keys[at - BASE] === key };
          for (const { kind, key } of ops) {
            if (kind === 'put') {
              expect(index.put(key, hash(key), records, BASE + keys.length)).toBe(model.get(key) ?? -1);
              model.set(key, BASE + keys.length);
              keys.push(key);
            } else if (kind === 'remove') {
              expect(index.remove(key, hash(key), records)).toBe(model.get(key) ?? -1);
              model.delete(key);
            } else {
              const at = model.get(key);
              if (at !== undefined) index.removeAt(hash(key), at);
              model.delete(key);
            }
            expect(index.size).toBe(model.size);
          }
          for (const [key, at] of model) expect(index.get(key, hash(key), records)).toBe(at);
          for (const key of ['', 'zz', ...keys]) {
            if (!model.has(key)) expect(index.get(key, hash(key), records)).toBe(-1);
          }
        }),
        { numRuns: 300 },
      );
    });
  }

  it('compares the keys, not only their hashes', () => {
    const index = new KeyIndex();
    const keys = ['a'];
    const records = { holds: (at: number, key: string) => keys[at] === key };
    index.put('a', 1, records, 0);
    expect(index.get('b', 1, records)).toBe(-1);
    expect(index.remove('b', 1, records)).toBe(-1);
    expect(index.get('a', 1, records)).toBe(0);
  });

  it('keeps its table in proportion to the live keys as keys come and go', () => {
    const index = new KeyIndex();
    const keys: string[] = [];
    const records = { holds: (at: number, key: string) => keys[at] === key };
    for (let i = 0; i < 100_000; i++) {
      const key = `k${i}`;
      index.put(key, hashKey(key, 1), records, keys.length);
      keys.push(key);
      if (i >= 100) index.removeAt(hashKey(keys[i - 100] as string, 1), i - 100);
    }
    expect(index.size).toBe(100);
    // 100 live keys: a table of at most 8 slots per key, not one per key ever seen.
    expect(index.slots).toBeLessThanOrEqual(8 * 100);
  });
});

describe('hashKey', () => {
  it('spreads transaction-hash keys evenly over the low bits the index uses', () => {
    const buckets = new Array<number>(1024).fill(0);
    for (let i = 0; i < 16_384; i++) {
      const key = `${i.toString(16).padStart(64, '0')}:success`;
      const bucket = hashKey(key, 42) & 1023;
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    // 16 keys per bucket on average; sequential keys that differ in a few characters must not cluster.
    expect(Math.max(...buckets)).toBeLessThan(40);
    expect(buckets.filter((n) => n === 0).length).toBeLessThan(5);
  });

  it('depends on the seed, so that colliding keys cannot be chosen without it', () => {
    const keys = Array.from({ length: 64 }, (_, i) => `key-${i}`);
    const slots = (seed: number) => keys.map((k) => hashKey(k, seed) & 63).join();
    expect(slots(1)).toBe(slots(1));
    expect(slots(1)).not.toBe(slots(2));
  });
});

describe('ExpiryQueue', () => {
  for (const [name, hash] of Object.entries(HASHES)) {
    it(`keeps keys oldest first and expires them as a list would (${name})`, () => {
      // Few keys, set again and again: dead records pile up until the queue compacts (past 1,024
      // records) and rebuilds its index.
      const few = fc.stringMatching(/^[a-f]{1,3}$/);
      const op = fc.oneof(
        {
          weight: 30,
          arbitrary: fc.record({
            kind: fc.constant('set' as const),
            key: few,
            until: fc.integer({ min: 0, max: 1000 }),
          }),
        },
        { weight: 5, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: few }) },
        {
          weight: 1,
          arbitrary: fc.record({ kind: fc.constant('sweep' as const), now: fc.integer({ min: 0, max: 20 }) }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('shift' as const) }) },
      );
      fc.assert(
        fc.property(fc.array(op, { minLength: 1500, maxLength: 4000 }), (ops) => {
          const queue = new ExpiryQueue();
          let model: [string, number][] = []; // oldest first
          for (const step of ops) {
            if (step.kind === 'set') {
              model = model.filter(([k]) => k !== step.key);
              model.push([step.key, step.until]);
              queue.set(step.key, hash(step.key), step.until);
            } else if (step.kind === 'delete') {
              const held = model.some(([k]) => k === step.key);
              model = model.filter(([k]) => k !== step.key);
              expect(queue.delete(step.key, hash(step.key))).toBe(held);
            } else if (step.kind === 'sweep') {
              while (model.length > 0 && (model[0] as [string, number])[1] <= step.now) model.shift();
              queue.sweep(step.now);
            } else {
              expect(queue.shift()).toBe(model.shift()?.[0]);
            }
            expect(queue.size).toBe(model.length);
          }
          for (const [k, until] of model) expect(queue.get(k, hash(k))).toBe(until);
        }),
        { numRuns: 20, endOnFailure: true }, // shrinking thousands of steps would take minutes
      );
    });
  }

  it('keeps its arrays in proportion to the live keys when one key leaves for each that comes', () => {
    // A full store: every new key shifts the oldest out. Its records must be compacted away, not kept
    // as a consumed prefix that grows with every notification ever seen.
    const queue = new ExpiryQueue();
    for (let i = 0; i < 200_000; i++) {
      const key = `k${i}`;
      queue.set(key, hashKey(key, 3), i);
      if (queue.size > 100) queue.shift();
    }
    expect(queue.size).toBe(100);
    for (let i = 199_900; i < 200_000; i++) expect(queue.get(`k${i}`, hashKey(`k${i}`, 3))).toBe(i);
    expect(queue.get('k199899', hashKey('k199899', 3))).toBeUndefined();
    const inside = queue as unknown as Record<'keys' | 'hashes' | 'untils', unknown[]>;
    for (const array of [inside.keys, inside.hashes, inside.untils])
      expect(array.length).toBeLessThanOrEqual(1024);
  });
});
