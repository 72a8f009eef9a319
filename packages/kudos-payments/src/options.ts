import { checkPositive, MIN_WEBHOOK_SECRET_LENGTH } from 'kudos-core';
import type { WebhookRequest } from './core/body.js';
import { checkDenom, type KudosConfirmer } from './core/confirm.js';
import type { KudosDedupeStore } from './core/dedupe.js';
import type { KudosRefusal } from './core/errors.js';
import type { KudosNotificationHandler } from './core/pipeline.js';
import { MemoryDedupeStore } from './stores/memory/memory-dedupe-store.js';

// The receiver's options, their checks and their defaults: one place for every adapter of it
// (kudosWebhook(), kudosWebhookFetch(), kudosReceiver()).

/** Default largest notification body: 64 kB. */
const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Default time a processed notification key (and a decided payment) is remembered: 7 days. */
const DEFAULT_DEDUPE_TTL_MS = 7 * 24 * 3600 * 1000;
/** Default processing lease: renewed while the handler runs; a crashed process's claim expires after it. */
const DEFAULT_LEASE_MS = 60 * 1000;
/** Default longest wait for the handler before answering 503 `handler_timeout`. */
const DEFAULT_HANDLER_TIMEOUT_MS = 25 * 1000;
/** Default longest time reading a notification's body: 10 s (a 64 kB body takes milliseconds). */
const DEFAULT_BODY_TIMEOUT_MS = 10 * 1000;
/** Options of `kudosWebhook()`, `kudosWebhookFetch()` and `kudosReceiver()`. */
export interface KudosReceiverOptions {
  /**
   * The application's handler; may be async. Throwing or rejecting answers 500 and releases the key
   * (the notification stays kept for `redrive()`). `req` is the delivery's request, undefined when
   * `redrive()` or `reconcileChain()` runs it. Make it idempotent by `txHash`: processing is at least once.
   */
  onNotification: KudosNotificationHandler;
  /**
   * Secret(s) carried in the webhook URL (`?token=` or last path segment) or as the password of
   * `Authorization: Basic`; several allow rotation. Required: a missing or empty value throws
   * `TypeError` (an unset environment variable must not open the receiver to anyone). Only
   * `false` runs without one, which lets anyone who knows the URL post notifications.
   */
  secret: string | readonly string[] | false;
  /** Decides whether a notification is real before it is presented as paid (see `cosmosConfirmer`). */
  confirm?: KudosConfirmer;
  /**
   * Dedupe store; default a `MemoryDedupeStore` (one process, lost on a restart: warned once when
   * `NODE_ENV=production`). One instance: `SqliteDedupeStore`; several: `RedisDedupeStore`.
   */
  store?: KudosDedupeStore;
  /** How long a processed key is remembered; default 7 days. */
  dedupeTtlMs?: number;
  /** Processing lease of a claim, renewed while the handler runs; default 60 s. */
  leaseMs?: number;
  /** Longest wait for confirmation + handler before answering 503 `handler_timeout`; default 25 s. */
  handlerTimeoutMs?: number;
  /** Largest body in bytes; default 64 kB. */
  maxBodyBytes?: number;
  /**
   * Longest time reading a body, in milliseconds (a body that drips a byte a second would hold the
   * receiver); past it the delivery is answered 408 `body_timeout`, and the sender retries. Default 10 s.
   */
  bodyTimeoutMs?: number;
  /**
   * Clock in epoch milliseconds that every time of the receiver reads (a notification's arrival,
   * `status()`, how old a transfer `reconcileChain()` processes); default `Date.now` (tests).
   */
  now?: () => number;
  /** Accept only this `tx.amount.denom` (422 `unexpected_denom` otherwise). */
  denom?: string;
  /** Told of every refused or failed delivery, redrive or reconcile (for logging). Never given secrets. */
  onError?: (error: KudosRefusal, req: WebhookRequest | undefined) => void;
}

/** Whether the production warning about the default store was given (once per process). */
let warnedMemoryStore = false;

/** The code of that warning (a process warning, not an error: it refuses nothing). */
const MEMORY_STORE_WARNING = 'KUDOS_MEMORY_DEDUPE_STORE';

/**
 * In production, a receiver on the default memory store is told once that what it keeps does not
 * survive a restart: a crash then loses the payments the handler had not processed.
 */
function warnMemoryStore(where: ReceiverCaller): void {
  if (warnedMemoryStore || process.env.NODE_ENV !== 'production') return;
  warnedMemoryStore = true;
  process.emitWarning(
    `${where}() runs on the default MemoryDedupeStore: the notifications it keeps for redrive() do not survive a restart. Pass a durable "store": SqliteDedupeStore (kudos-payments/sqlite) for one instance, RedisDedupeStore for several.`,
    { type: 'KudosWarning', code: MEMORY_STORE_WARNING },
  );
}

/** The public function whose options these are: what every option error names (the user's own call). */
export type ReceiverCaller = 'kudosWebhook' | 'kudosWebhookFetch' | 'kudosReceiver' | 'kudosPayments';

function checkSecrets(secret: unknown, where: ReceiverCaller): readonly string[] | undefined {
  if (secret === false) return undefined;
  const secrets: unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  if (
    secrets.length === 0 ||
    !secrets.every((s) => typeof s === 'string' && s.length >= MIN_WEBHOOK_SECRET_LENGTH)
  ) {
    throw new TypeError(
      `${where} option "secret" must be a string (or strings) of at least 16 characters; it is missing or too short (pass secret: false to run without one)`,
    );
  }
  return secrets as string[];
}

/** The options every receiver reads besides its handler and confirmer: what `kudosPayments()` shares. */
export type KudosSharedReceiverOptions = Omit<KudosReceiverOptions, 'onNotification' | 'confirm'>;

/** A positive number option, or its default. */
function positive(
  options: KudosSharedReceiverOptions,
  name: keyof KudosSharedReceiverOptions,
  fallback: number,
  where: ReceiverCaller,
): number {
  return checkPositive(options[name] ?? fallback, `${where} option "${name}"`);
}

/** A function option (`onError`, `confirm`), or undefined: never a value that fails when first called. */
export function optionalFunction<F>(value: F | undefined, name: string, where: string): F | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError(`${where} option "${name}" must be a function`);
  }
  return value;
}

/** The `store` option: a dedupe store (its `claim()` and `complete()` at least), or the default. */
function dedupeStore(store: unknown, where: ReceiverCaller): KudosDedupeStore {
  if (store === undefined) return new MemoryDedupeStore();
  const methods = store as Partial<Record<'claim' | 'complete', unknown>> | null;
  if (typeof methods?.claim !== 'function' || typeof methods.complete !== 'function') {
    throw new TypeError(
      `${where} option "store" must be a dedupe store (with claim() and complete()): MemoryDedupeStore, SqliteDedupeStore, RedisDedupeStore or your own`,
    );
  }
  return store as KudosDedupeStore;
}

/** The `now` option, checked. */
function clock(now: (() => number) | undefined, where: ReceiverCaller): () => number {
  return optionalFunction(now, 'now', where) ?? Date.now;
}

/**
 * The shared options checked once, with their defaults (a mistake is a `TypeError` naming `where`,
 * the user's own call): the receiver takes them as they are, never checking them again.
 */
export function receiverSettings(options: KudosSharedReceiverOptions, where: ReceiverCaller) {
  const secrets = checkSecrets(options.secret, where);
  if (!options.store) warnMemoryStore(where);
  return {
    secrets,
    store: dedupeStore(options.store, where),
    maxBodyBytes: positive(options, 'maxBodyBytes', DEFAULT_MAX_BODY_BYTES, where),
    dedupeTtlMs: positive(options, 'dedupeTtlMs', DEFAULT_DEDUPE_TTL_MS, where),
    leaseMs: positive(options, 'leaseMs', DEFAULT_LEASE_MS, where),
    handlerTimeoutMs: positive(options, 'handlerTimeoutMs', DEFAULT_HANDLER_TIMEOUT_MS, where),
    bodyTimeoutMs: positive(options, 'bodyTimeoutMs', DEFAULT_BODY_TIMEOUT_MS, where),
    now: clock(options.now, where),
    denom: options.denom === undefined ? undefined : checkDenom(options.denom, where),
    onError: optionalFunction(options.onError, 'onError', where),
  };
}

/** The shared options as the receiver takes them. */
export type ReceiverSettings = ReturnType<typeof receiverSettings>;

/** Everything a receiver is made of, checked: its settings, its handler and its confirmer. */
export interface ResolvedReceiver extends ReceiverSettings {
  onNotification: KudosNotificationHandler;
  confirm: KudosConfirmer | undefined;
}

/** The options of `kudosReceiver()` and its adapters, checked once, with their defaults. */
export function resolveReceiverOptions(
  options: KudosReceiverOptions,
  where: ReceiverCaller,
): ResolvedReceiver {
  if (typeof options?.onNotification !== 'function') {
    throw new TypeError(`${where} requires an "onNotification" function`);
  }
  return {
    ...receiverSettings(options, where),
    onNotification: options.onNotification,
    confirm: optionalFunction(options.confirm, 'confirm', where),
  };
}
