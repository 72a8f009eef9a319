import type { KudosTxStatus } from 'kudos-core/chain';
import type { KudosNotificationSource } from './types.js';

/**
 * What a dedupe store says of a key when a delivery tries to claim it: `claimed` (this caller may
 * process it now), `processing` (another delivery holds a lease on it and has not finished) or
 * `done` (processed within the dedupe TTL).
 */
export type KudosClaimResult = 'claimed' | 'processing' | 'done';

/**
 * Who holds a claim, passed to every call about it. The receiver picks `token` (random) before it
 * sends the claim, so that a claim whose answer never came back (a store that timed out) can still
 * be released with it. A store acts on `complete`, `release` and `extend` only for the token that
 * holds the key.
 */
export interface KudosClaimContext {
  /** Random, unguessable; chosen by the receiver before the claim. */
  token: string;
  /**
   * Whether the notification is worth something to a forger: its secret was checked (`claim`), or it
   * was confirmed on the chain (`complete`). A store that evicts must never let an untrusted key evict
   * a trusted one inside its TTL (a flood of forged notifications would otherwise make room for a
   * real one to be processed twice).
   */
  trusted: boolean;
  /**
   * What to keep with the claim, when the store keeps on claim (`keepsOnClaim`): the receiver keeps
   * every claimed notification until it is processed, so a store can save a round trip here.
   */
  keep?: { record: KudosKeptNotification; ttlMs: number };
  /**
   * Told when keeping `keep` replaced a kept record the store could not read (edited by hand,
   * another program's key): the claim treats it as absent, never as a failure that would block
   * every redelivery of the payment.
   */
  unreadable?: KudosUnreadableKept;
}

/** Told of a kept record a store skipped: its stored key (or row) and why it could not be read. */
export type KudosUnreadableKept = (key: string, reason: string) => void;

/** What `unprocessed()` lists of a notification the receiver could not process (yet). */
export interface KudosUnprocessedNotification {
  /** Dedupe key, `txHash:status`. */
  key: string;
  txHash: string;
  status: KudosTxStatus;
  /** Deliveries (and redrives) that claimed it so far. */
  attempts: number;
  /** Why the last one failed (the handler's or confirmer's message, cut to 500 characters); null while none failed. */
  lastError: string | null;
  /** When it first arrived, epoch milliseconds. */
  receivedAt: number;
}

/** What a store keeps of a notification until it is processed: what is listed, and how to run it again. */
export interface KudosKeptNotification extends KudosUnprocessedNotification {
  /** The notification body as received (sanitized JSON), to run it again. */
  body: unknown;
  source: KudosNotificationSource;
  /** Whether it was trusted when it arrived (see {@link KudosClaimContext.trusted}). */
  trusted: boolean;
}

/**
 * Where the receiver remembers which notifications it is processing and has processed, and keeps
 * those it could not process. Pluggable so that several instances can share one (see
 * `kudos-payments/redis`); `dedupeStoreContract()` of `kudos-payments/testing` checks one. Every
 * method may reject (the receiver answers 503 and the service retries).
 */
export interface KudosDedupeStore {
  /**
   * Claims `key` with a processing lease of `leaseMs`, held by `claim.token`. Must be atomic: of
   * concurrent callers, one gets `claimed`; the others `processing`. A key whose lease expired may be
   * claimed again; a completed key answers `done` until its TTL ends. Any other answer is a store
   * failure (503).
   */
  claim(key: string, leaseMs: number, claim: KudosClaimContext): Promise<KudosClaimResult>;
  /**
   * Marks a claimed key processed, remembered for `ttlMs`, and forgets what was kept of it. Not when
   * another token holds the key now (this caller's lease expired and someone else claimed it).
   */
  complete(key: string, ttlMs: number, claim: KudosClaimContext): Promise<void>;
  /** Releases a claim whose processing failed, so that a redelivery is processed; only for its token. */
  release(key: string, claim: KudosClaimContext): Promise<void>;
  /**
   * Optional but recommended: renews the lease of a key this token still holds. The receiver calls
   * it while a handler runs, so a handler slower than the lease is never run twice at once.
   */
  extend?(key: string, leaseMs: number, claim: KudosClaimContext): Promise<void>;
  /**
   * Keeps what the receiver could not process yet, for `ttlMs` (needed by `unprocessed()`,
   * `redrive()`): creates the record, or updates it: `attempts` is added to the kept count, a
   * non-null `lastError` replaces the kept one, the first `receivedAt` stays. A key that is done
   * keeps nothing. A kept record it cannot read is replaced as if absent and told to `unreadable`.
   */
  keep?(record: KudosKeptNotification, ttlMs: number, unreadable?: KudosUnreadableKept): Promise<void>;
  /**
   * What is kept and not yet processed, oldest first, at most `limit`. A record the store cannot
   * read is left out and told to `unreadable` (its key and why), never fatal to the others.
   */
  kept?(limit: number, unreadable?: KudosUnreadableKept): Promise<KudosKeptNotification[]>;
  /**
   * Optional: rejects when the store cannot take a write now (a full Redis under `noeviction`, a
   * policy that may evict), with the reason; `status()` then answers `storeOk: false`. A store that
   * answers reads while it refuses writes should have it.
   */
  health?(): Promise<void>;
  /**
   * Optional but recommended: the value saved under `name` by {@link saveCheckpoint}, or null (none,
   * or expired). `reconcileChain()` remembers with it how far it read the chain, so that every
   * instance sharing the store reads only what is new; without it each process remembers its own.
   */
  checkpoint?(name: string): Promise<string | null>;
  /** With `checkpoint`: saves `value` (a short text) under `name` for `ttlMs`, replacing the one saved. */
  saveCheckpoint?(name: string, value: string, ttlMs: number): Promise<void>;
  /**
   * True when a `claimed` answer has kept `claim.keep` already (as `keep()` would), in the same
   * step: the receiver then makes no separate `keep()` call for the claim.
   */
  readonly keepsOnClaim?: boolean;
}

/**
 * The claim context every claim, completion, release and renewal needs (who holds the key): a store
 * refuses a call without it, as there is no owner to check.
 */
export function checkClaimContext(claim: unknown, store: string): asserts claim is KudosClaimContext {
  const context = claim as Partial<KudosClaimContext> | undefined;
  if (typeof context?.token !== 'string' || context.token === '' || typeof context.trusted !== 'boolean') {
    throw new TypeError(
      `${store}: claim(), complete(), release() and extend() need the claim context ({ token, trusted }) the receiver passes`,
    );
  }
}

/** The store is full of keys an untrusted claim may not evict. */
export class DedupeStoreFullError extends Error {
  constructor() {
    super('the dedupe store is full of trusted keys; an unverified notification may not evict them');
    this.name = 'DedupeStoreFullError';
  }
}
