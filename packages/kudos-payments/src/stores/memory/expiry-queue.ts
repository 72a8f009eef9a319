import { KeyIndex, type KeyRecords } from './key-index.js';

/** Positions are renumbered from 0 before they pass this (the index holds them as int32). */
const MAX_POSITION = 2 ** 30;

/**
 * Keys with an expiry, oldest first, where every operation is O(1) amortized and a key costs no
 * object of its own. A `Map` alone is not enough: deleting from the front of a V8 `Map` leaves holes
 * that each later walk from the front passes again (measured: 36x slower per operation at a million
 * keys), a record object per key makes every garbage collection longer as the store grows, and a
 * lookup in a `Map` of a million strings costs several cache misses (see {@link KeyIndex}). Here
 * plain arrays are the queue (keys, their hashes, and expiries as unboxed doubles; a moving head),
 * a replaced or deleted record is marked with a NaN expiry, and the index says where each live key
 * stands.
 *
 * Records have positions that only grow (`base` is the position of the first one kept), so that
 * dropping the consumed front of the arrays, the common case (a full store shifts one key out for
 * each key it adds), leaves the index as it is. Only when dead records inside the queue outnumber
 * the live ones are the records renumbered and the index rebuilt.
 *
 * Every method takes the key's hash (`hashKey` with the seed of the queue's owner), so that a
 * caller that looks a key up in several queues hashes it once.
 */
export class ExpiryQueue implements KeyRecords {
  private readonly index = new KeyIndex();
  private keys: string[] = [];
  private hashes: number[] = [];
  /** Expiry of each record, epoch milliseconds; NaN once replaced or deleted. */
  private untils: number[] = [];
  /** Position of `keys[0]`. */
  private base = 0;
  /** Index in the arrays of the oldest record not consumed. */
  private head = 0;

  /** Number of live keys. */
  get size(): number {
    return this.index.size;
  }

  /** The expiry of `key`, or undefined when it is not held. */
  get(key: string, hash: number): number | undefined {
    const at = this.index.get(key, hash, this);
    return at < 0 ? undefined : this.untils[at - this.base];
  }

  /** Holds `key` until `until`, as the newest entry. */
  set(key: string, hash: number, until: number): void {
    const before = this.index.put(key, hash, this, this.base + this.keys.length);
    if (before >= 0) this.untils[before - this.base] = Number.NaN;
    this.keys.push(key);
    this.hashes.push(hash);
    this.untils.push(until);
    this.compact();
  }

  /** Forgets `key`; true when it was held. */
  delete(key: string, hash: number): boolean {
    const at = this.index.remove(key, hash, this);
    if (at < 0) return false;
    this.untils[at - this.base] = Number.NaN;
    return true;
  }

  /** Drops the expired keys at the front; stops at the first live key that has not expired. */
  sweep(now: number): void {
    while (this.head < this.keys.length) {
      const until = this.untils[this.head] as number;
      if (!Number.isNaN(until)) {
        if (until > now) return;
        this.index.removeAt(this.hashes[this.head] as number, this.base + this.head);
      }
      this.consume();
    }
  }

  /** Removes and returns the oldest live key. */
  shift(): string | undefined {
    while (this.head < this.keys.length) {
      const key = this.keys[this.head] as string;
      const live = !Number.isNaN(this.untils[this.head]);
      if (live) this.index.removeAt(this.hashes[this.head] as number, this.base + this.head);
      this.consume();
      if (live) return key;
    }
    return undefined;
  }

  /** Whether the record at `position` holds `key` (asked by the index when the hashes match). */
  holds(position: number, key: string): boolean {
    return this.keys[position - this.base] === key;
  }

  /** Moves the head past one record, letting go of its key. */
  private consume(): void {
    this.keys[this.head] = '';
    this.head++;
  }

  /**
   * Keeps the arrays within twice the live keys (and 1,024 records), in O(1) amortized: a copy of
   * n records follows about n pushes, sweeps or shifts. When dead records (replaced or deleted)
   * are what fills the queue, they are dropped: records renumbered from 0, index rebuilt. Otherwise
   * only the consumed front is cut off, a sequential copy that leaves positions and index as they are.
   */
  private compact(): void {
    const length = this.keys.length;
    if (length < 1024 || length < 2 * this.index.size) return;
    const held = length - this.head;
    if (held >= 2 * this.index.size || this.base + length >= MAX_POSITION) this.renumber();
    else this.dropConsumed();
  }

  private dropConsumed(): void {
    this.keys = this.keys.slice(this.head);
    this.hashes = this.hashes.slice(this.head);
    this.untils = this.untils.slice(this.head);
    this.base += this.head;
    this.head = 0;
  }

  private renumber(): void {
    const keys: string[] = [];
    const hashes: number[] = [];
    const untils: number[] = [];
    this.index.clear(this.index.size);
    for (let at = this.head; at < this.keys.length; at++) {
      const until = this.untils[at] as number;
      if (Number.isNaN(until)) continue;
      const hash = this.hashes[at] as number;
      this.index.add(hash, keys.length);
      keys.push(this.keys[at] as string);
      hashes.push(hash);
      untils.push(until);
    }
    this.keys = keys;
    this.hashes = hashes;
    this.untils = untils;
    this.base = 0;
    this.head = 0;
  }
}
