/** Table value of a slot never used; a probe for a key stops there. */
const EMPTY = 0;
/** Table value of a slot whose key was removed; a probe goes on past it. */
const GONE = -1;
/** Fewest slots of a table (a queue of a few leases reuses one small table, see `clear`). */
const MIN_SLOTS = 64;

/** What the index asks of the records its positions point into. */
export interface KeyRecords {
  /** Whether the record at `position` holds `key`. */
  holds(position: number, key: string): boolean;
}

/** Smallest power of two that is at least `n` and at least {@link MIN_SLOTS}. */
function slotsFor(n: number): number {
  let slots = MIN_SLOTS;
  while (slots < n) slots *= 2;
  return slots;
}

/**
 * Where each key of an expiry queue stands in its record arrays: an open-addressing hash
 * table (linear probing) in one `Int32Array` of (hash, position + 1) pairs. Unlike a `Map` of a
 * million strings, a lookup that misses touches one cache line and no string (the 32-bit hashes
 * are compared first), and the table is one object the garbage collector never walks. The keys
 * themselves stay with the caller ({@link KeyRecords}, passed to each call; positions are the
 * caller's) and are compared only when the hashes match. Positions must stay below 2^31 - 1.
 *
 * At most half of the slots are in use (live or removed); past that the table is rebuilt with
 * four slots per live key at least, so that a rebuild comes only after as many operations as it
 * costs: every operation is O(1) amortized.
 */
export class KeyIndex {
  private table = new Int32Array(2 * MIN_SLOTS);
  private mask = MIN_SLOTS - 1;
  /** Slots not EMPTY (live and GONE). */
  private used = 0;
  private live = 0;

  get size(): number {
    return this.live;
  }

  /** Slots of its table (two int32 each): what it holds in memory, whatever the live keys. */
  get slots(): number {
    return this.mask + 1;
  }

  /** Position of `key` (of hash `hash`, among `records`), or -1 when it is not held. */
  get(key: string, hash: number, records: KeyRecords): number {
    const slot = this.find(key, hash, records);
    return slot < 0 ? -1 : (this.table[2 * slot + 1] as number) - 1;
  }

  /** Points `key` at `position`; returns the position it had, or -1 when it was not held. */
  put(key: string, hash: number, records: KeyRecords, position: number): number {
    const slot = this.find(key, hash, records);
    if (slot >= 0) {
      const before = (this.table[2 * slot + 1] as number) - 1;
      this.table[2 * slot + 1] = position + 1;
      return before;
    }
    this.add(hash, position);
    return -1;
  }

  /** Forgets `key`; returns the position it had, or -1 when it was not held. */
  remove(key: string, hash: number, records: KeyRecords): number {
    const slot = this.find(key, hash, records);
    if (slot < 0) return -1;
    const before = (this.table[2 * slot + 1] as number) - 1;
    this.table[2 * slot + 1] = GONE;
    this.live--;
    return before;
  }

  /** Forgets the key of hash `hash` held at `position`, without reading the key. */
  removeAt(hash: number, position: number): void {
    const table = this.table;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const value = table[2 * slot + 1] as number;
      if (value === EMPTY) return;
      if (value === position + 1) {
        table[2 * slot + 1] = GONE;
        this.live--;
        return;
      }
    }
  }

  /** Forgets every key and makes room for `expected` of them (positions change, e.g. on compaction). */
  clear(expected: number): void {
    const slots = slotsFor(4 * expected);
    // The same size again (a queue of a few short leases, cleared often): reuse the table.
    if (slots === this.mask + 1) this.table.fill(EMPTY);
    else this.table = new Int32Array(2 * slots);
    this.mask = slots - 1;
    this.used = 0;
    this.live = 0;
  }

  /** Adds a key known not to be held, at `position`. */
  add(hash: number, position: number): void {
    const table = this.table;
    let slot = hash & this.mask;
    while ((table[2 * slot + 1] as number) > EMPTY) slot = (slot + 1) & this.mask;
    if (table[2 * slot + 1] === EMPTY) this.used++;
    table[2 * slot] = hash;
    table[2 * slot + 1] = position + 1;
    this.live++;
    if (2 * this.used > this.mask + 1) this.rebuild();
  }

  /** Slot of `key`, or -1. A probe always ends: at least half of the slots are EMPTY. */
  private find(key: string, hash: number, records: KeyRecords): number {
    const table = this.table;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const value = table[2 * slot + 1] as number;
      if (value === EMPTY) return -1;
      if (value > EMPTY && table[2 * slot] === hash && records.holds(value - 1, key)) return slot;
    }
  }

  /** Re-adds the live keys into a table without GONE slots, sized for them. */
  private rebuild(): void {
    let old = this.table;
    if (slotsFor(4 * this.live) === this.mask + 1) old = old.slice(); // clear() will reuse the table
    this.clear(this.live);
    for (let slot = 0; 2 * slot < old.length; slot++) {
      const value = old[2 * slot + 1] as number;
      if (value > EMPTY) this.add(old[2 * slot] as number, value - 1);
    }
  }
}
