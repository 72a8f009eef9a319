import type { KudosReconcileResult } from '../recovery/reconcile.js';

/**
 * The return page's lookups of a hash no path brought yet (`check()`), at a cost bounded whatever a
 * visitor sends: one lookup per hash at a time (the others wait for it), a short memory of hashes the
 * service does not know, and at most `maxInFlight` lookups at once (past it a visitor is answered
 * `pending` at once: no new socket). The wait for a hash that a delivery of this process holds is
 * `DecisionWaits` (decision-waits.ts).
 */

/** What one lookup of a hash came to. */
type LookupOutcome =
  /** Looked up and processed as a notification would be (or found a decision already). */
  | 'looked'
  /** Another path holds the hash right now (a delivery in progress): its decision will come. */
  | 'held'
  /** The service does not know the hash (or did not answer): nothing to decide yet. */
  | 'unknown'
  /** Too many lookups in flight: not looked up now. */
  | 'busy';

/** Most hashes remembered as unknown at once; the oldest is forgotten first. */
const MAX_UNKNOWN = 10_000;

export class ReturnPageLookups {
  private readonly inFlight = new Map<string, Promise<LookupOutcome>>();
  /** Hashes the service did not know, until when. */
  private readonly unknown = new Map<string, number>();

  constructor(
    private readonly lookup: (hash: string) => Promise<KudosReconcileResult>,
    private readonly maxInFlight: number,
    private readonly unknownTtlMs: number,
    private readonly now: () => number,
  ) {}

  /** Looks `hash` up once however many visitors ask at the same time. */
  run(hash: string): Promise<LookupOutcome> {
    const shared = this.inFlight.get(hash);
    if (shared) return shared;
    const until = this.unknown.get(hash);
    if (until !== undefined) {
      if (until > this.now()) return Promise.resolve('unknown');
      this.unknown.delete(hash);
    }
    if (this.inFlight.size >= this.maxInFlight) return Promise.resolve('busy');
    const running = this.lookUp(hash).finally(() => this.inFlight.delete(hash));
    this.inFlight.set(hash, running);
    return running;
  }

  private async lookUp(hash: string): Promise<LookupOutcome> {
    const result = await this.lookup(hash).catch(() => undefined);
    if (result === undefined || result.seen === 0) {
      this.remember(hash);
      return 'unknown';
    }
    return result.failed > 0 ? 'held' : 'looked';
  }

  /** A hash looked up that decided nothing for the shop: not looked up again for a while. */
  nothingFor(hash: string): void {
    this.remember(hash);
  }

  private remember(hash: string): void {
    if (this.unknown.size >= MAX_UNKNOWN) {
      const [oldest] = this.unknown.keys();
      if (oldest !== undefined) this.unknown.delete(oldest);
    }
    this.unknown.set(hash, this.now() + this.unknownTtlMs);
  }
}
