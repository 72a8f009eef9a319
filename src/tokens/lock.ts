/**
 * A lock around each user's refresh, so that one refresh token is spent once (docs/kudos-service.md#limits rule a).
 * The default works within one process; `passport-kudos/redis` has one that spans processes.
 */
export interface KudosRefreshLock {
  /**
   * Runs `fn` while holding the lock for `key`, waiting while another holder has it. `ttlMs`
   * bounds how long a crashed holder can block the others.
   */
  withLock<T>(key: string, ttlMs: number, fn: () => Promise<T>): Promise<T>;
}

/** A lock for one process: calls for the same key run one after another. */
export class MemoryRefreshLock implements KudosRefreshLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async withLock<T>(key: string, _ttlMs: number, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
