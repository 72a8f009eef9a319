// The return pages waiting for a transaction to be decided by this process: a page that looked a hash
// up (or found a delivery of it running) is told when the path running it has decided it (or given
// up), not by polling the store. Made before the receiver, its settler and the lookups, which all
// reach it by name.

/** The waits of return pages, by transaction hash. */
export class DecisionWaits {
  private readonly waiting = new Map<string, Set<() => void>>();

  /**
   * A wait for this process to decide `hash` ({@link DecisionWaits.decided}), at most `ms`: `done` resolves then.
   * Made before the lookup, so that a decision made while it runs is not missed; `cancel` ends a
   * wait that is not needed.
   */
  waitForDecision(hash: string, ms: number): { done: Promise<void>; cancel: () => void } {
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      const waiters = this.waiting.get(hash) ?? new Set<() => void>();
      this.waiting.set(hash, waiters);
      finish = () => {
        clearTimeout(timer);
        waiters.delete(finish);
        if (waiters.size === 0 && this.waiting.get(hash) === waiters) this.waiting.delete(hash);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      timer.unref();
      waiters.add(finish);
    });
    return { done, cancel: finish };
  }

  /** A path of this process decided `hash` (or gave up on it): its waiters read the decision now. */
  decided(hash: string): void {
    for (const done of [...(this.waiting.get(hash) ?? [])]) done();
  }
}
