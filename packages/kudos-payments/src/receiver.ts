import type { KudosNotificationMessage } from 'kudos-core';
import { KudosError } from 'kudos-core';
import { readDeliveryBody, type WebhookRequest } from './core/body.js';
import type { KudosDedupeStore, KudosUnprocessedNotification } from './core/dedupe.js';
import type { KudosRefusal } from './core/errors.js';
import { KudosNotificationError } from './core/errors.js';
import { observeNotification, recordFailure, tracedStore } from './core/observe.js';
import { type PipelineSettings, runNotification } from './core/pipeline.js';
import { asHandlerError } from './core/process-once.js';
import { secretMatches } from './core/secret.js';
import type { KudosNotification } from './core/types.js';
import { type KudosReceiverOptions, type ResolvedReceiver, resolveReceiverOptions } from './options.js';
import { ChainReconciler } from './recovery/chain-runs.js';
import { PayerIds } from './recovery/payer-ids.js';
import type { KudosReconcileResult } from './recovery/reconcile.js';
import {
  type ChainLookup,
  type ChainPlan,
  type KudosReconcileChain,
  readChain,
  reconcileChain,
  reconcileChainTx,
} from './recovery/reconcile-chain.js';
import { type KudosRedriveResult, listUnprocessed, redrive } from './recovery/recovery.js';
import { type KudosReceiverStatus, readStatus } from './recovery/status.js';

// The receiver without a framework: one delivery in (its method, URL, headers and body), one answer
// out (a status, headers and a JSON body), whatever brought it. kudosWebhook() (Node, Express,
// NestJS, Fastify) and kudosWebhookFetch() (a Fetch `Request`) are thin layers over it.

/** Headers as a framework gives them: a Fetch `Headers`, or Node's record (lower-case names). */
export type KudosHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** One delivery of a notification, as any framework hands it over. */
export interface KudosDelivery {
  /** The HTTP method; anything but POST is refused (405). */
  method: string;
  /** The request target (`/webhooks/kudos?token=...`) or the absolute URL, secret included: read, never kept. */
  url: string;
  headers: KudosHeaders;
  /**
   * The body: its bytes or text (checked against `maxBodyBytes` and parsed), the JSON a framework parsed
   * already, or a function that reads it (called only once the secret matched).
   */
  body: unknown;
}

/** The JSON the receiver answers: `{ ok, key, duplicate? }`, or a refusal's `{ error, code, path? }`. */
export type KudosReceiverAnswerBody =
  | { ok: true; key: string; duplicate?: true }
  | { error: string; code: string; path?: string };

/** What to answer a delivery. */
export interface KudosReceiverAnswer {
  status: number;
  /** `content-type` and `cache-control`, with `allow`, `retry-after` or `connection` when they apply. */
  headers: Record<string, string>;
  body: KudosReceiverAnswerBody;
  /** The notification processed (or found a duplicate), for a 200. */
  notification?: KudosNotification;
  /** Why it was refused, otherwise (already told to `onError`). */
  error?: KudosRefusal;
}

/** The receiver, and what every adapter of it offers beside the delivery: recovery and health. */
export interface KudosReceiver {
  /**
   * Answers one delivery: checks the secret, the method, the media type and the size, parses and
   * validates the body, and processes its key once. Never rejects: every problem is an answer.
   * `req` is handed to `onNotification` and `onError` as it is (Node's request; undefined otherwise).
   */
  receive(delivery: KudosDelivery, req?: WebhookRequest): Promise<KudosReceiverAnswer>;
  /** The answer to a problem found outside `receive()` (a body parser's error), told to `onError`. */
  refuse(error: KudosRefusal, req?: WebhookRequest): KudosReceiverAnswer;
  /**
   * The notifications that passed verification and were not processed: failed, timed out, or still
   * pending when their lease ended (a crash). Kept in the dedupe store until processed or its TTL ends.
   */
  unprocessed(): Promise<KudosUnprocessedNotification[]>;
  /**
   * Runs each unprocessed notification again through the same once-only processing. Run it on a
   * schedule: the service stops retrying after a while, and a handler may fail after it did.
   */
  redrive(): Promise<KudosRedriveResult>;
  /**
   * Reads the chain's transfers to `wallet` (the shop's wallet, both spellings) since a time and
   * processes each like a delivery, under the same keys: what never arrived, found with the chain
   * alone (no token, no service history). Run it on a schedule.
   */
  reconcileChain(args: KudosReconcileChain): Promise<KudosReconcileResult>;
  /**
   * The receiver's health, for a `/healthz` route: how many notifications wait unprocessed and the
   * age of the oldest, when one last arrived, and whether the store answers. Never rejects.
   */
  status(): Promise<KudosReceiverStatus>;
}

/** The recovery half of a receiver, defined once for every adapter (and kudosPayments()). */
export type KudosRecovery = Pick<KudosReceiver, 'unprocessed' | 'redrive' | 'reconcileChain' | 'status'>;

/** What adapters need of a receiver beyond its public face. @internal */
export interface ReceiverInternals extends KudosReceiver {
  /**
   * One transaction by hash from the chain alone (the return page's lookup), fed only when `concerns`
   * says it is the shop's: see `reconcileChainTx()`.
   */
  reconcileChainHash(
    hash: string,
    read: ChainLookup,
    concerns: (record: unknown) => boolean,
  ): Promise<KudosReconcileResult>;
  /** `reconcileChain()` by a plan its caller checked (kudosPayments()), from `since`. */
  reconcileChainPlan(plan: ChainPlan, since: unknown): Promise<KudosReconcileResult>;
  /** The secrets, to redact a request with; undefined with `secret: false`. */
  readonly secrets: readonly string[] | undefined;
  /** The largest body, for an adapter that reads the stream itself. */
  readonly maxBodyBytes: number;
  readonly store: KudosDedupeStore;
}

/** Seconds a sender is asked to wait (`Retry-After`) before retrying a 409 or 503. */
const RETRY_AFTER_S = '5';

/** One header of either kind of headers. */
function header(headers: KudosHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const value = (headers as Record<string, string | readonly string[] | undefined>)[name];
  return Array.isArray(value) ? value.join(', ') : (value as string | undefined);
}

function json(status: number, body: KudosReceiverAnswerBody, extra: Record<string, string> = {}) {
  return {
    status,
    body,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...extra },
  };
}

/**
 * The receiver of Kudos payment notifications, for any framework: `receive()` takes a delivery's
 * method, URL, headers and body and answers a status, headers and JSON (see `kudosWebhook()` for
 * Node and Express, `kudosWebhookFetch()` for a Fetch `Request`). The options are `kudosWebhook()`'s.
 *
 * @see docs/payments.md, docs/frameworks.md
 */
export function kudosReceiver(options: KudosReceiverOptions): KudosReceiver {
  return createReceiver(resolveReceiverOptions(options, 'kudosReceiver'));
}

/** Refusals that repeat at every delivery until someone mends their cause: told once each. */
const TOLD_ONCE = ['store_unusable', 'endpoint_gone'] as const;

/** The code of `TOLD_ONCE` an error (or its cause) carries, if any. */
function toldOnceCode(error: KudosRefusal): (typeof TOLD_ONCE)[number] | undefined {
  const cause = error.cause instanceof KudosError ? error.cause.code : undefined;
  return TOLD_ONCE.find((code) => code === error.code || code === cause);
}

/**
 * `onError` as the receiver calls it: a store's refusal, or a lookup whose route is gone, told once,
 * not at every delivery it refuses; and what `status()` says of the lookup.
 */
function errorReporter(onError: KudosReceiverOptions['onError']) {
  /** The last message told of each refusal that repeats. */
  const told = new Map<string, string>();
  /** Why the chain lookup fails for good (a route that is gone), until a notification is confirmed. */
  let lookupError: string | null = null;
  return {
    report(error: KudosRefusal, req: WebhookRequest | undefined): void {
      const once = toldOnceCode(error);
      if (once === 'endpoint_gone') lookupError = `endpoint_gone: ${error.message}`;
      if (once !== undefined) {
        if (told.get(once) === error.message) return;
        told.set(once, error.message);
      }
      try {
        onError?.(error, req);
      } catch {
        // A logger that throws must not change the answer.
      }
    },
    /** A notification went through: the store works (a new refusal is told again), and so does the lookup when it was confirmed. */
    works(confirmed: boolean): void {
      told.delete('store_unusable');
      if (confirmed) this.lookupWorks();
    },
    /** A lookup of the chain answered: it works. */
    lookupWorks(): void {
      told.delete('endpoint_gone');
      told.delete('lookup');
      lookupError = null;
    },
    /**
     * A return page's lookup of the chain failed: told to `onError` (once for as long as it fails
     * alike), and `status()` says the lookup fails until one works again.
     */
    lookupFailed(cause: unknown): void {
      const gone = cause instanceof KudosError && cause.code === 'endpoint_gone';
      const error = new KudosNotificationError(gone ? 'endpoint_gone' : 'confirmation_unavailable', {
        message: gone
          ? (cause as KudosError).message
          : `the return page's lookup of the chain failed: ${cause instanceof Error ? cause.message : 'failed'}`,
        cause,
      });
      if (gone) return this.report(error, undefined);
      lookupError = `${error.code}: ${error.message}`;
      if (told.get('lookup') === error.message) return;
      told.set('lookup', error.message);
      this.report(error, undefined);
    },
    lookupError: () => lookupError,
  };
}

/** The answer to a refused delivery: its status, the headers that go with it, the code and the path. */
function refusal(error: KudosRefusal): KudosReceiverAnswer {
  const headers: Record<string, string> = {};
  if (error.code === 'method_not_allowed') headers.allow = 'POST';
  if (error.code === 'payload_too_large' || error.code === 'body_timeout') headers.connection = 'close';
  if (error.status === 503 || error.status === 409) headers['retry-after'] = RETRY_AFTER_S;
  const path = error instanceof KudosNotificationError ? error.path : undefined;
  const body = { error: error.message, code: error.code, ...(path ? { path } : {}) };
  return { ...json(error.status, body, headers), error };
}

/**
 * What a receiver recovers with and reports, the same for every adapter: the notifications it kept,
 * their redrive, the reconcile from the chain, and its health (`lastNotificationAt`: when a
 * notification that passed the secret check last arrived).
 */
function recoveryOf(
  settings: PipelineSettings,
  lastNotificationAt: () => number | null,
  lookupError: () => string | null,
  chainRuns: ChainReconciler,
): KudosRecovery {
  const store = settings.store;
  return {
    unprocessed: () => listUnprocessed(store, settings.report),
    redrive: () => redrive(settings),
    reconcileChain: (args) => reconcileChain(settings, args, chainRuns),
    // A record the store cannot read is told by unprocessed() and redrive(), not at every health poll.
    status: () =>
      readStatus(
        async () => {
          // A store that reads but refuses writes (a full Redis) is not ok: new payments meet 503.
          await (store as KudosDedupeStore).health?.();
          return (await listUnprocessed(store, () => undefined)).map((n) => ({ since: n.receivedAt }));
        },
        lastNotificationAt(),
        settings.now(),
        { lookupError: lookupError(), ...chainRuns.health() },
      ),
  };
}

/**
 * @internal {@link kudosReceiver}, with what the adapters need, from options checked by its caller
 * (resolveReceiverOptions(), or kudosPayments()'s settings): nothing is checked again here.
 */
export function createReceiver(resolved: ResolvedReceiver): ReceiverInternals {
  const { secrets, maxBodyBytes, store } = resolved;
  const errors = errorReporter(resolved.onError);
  const settings: PipelineSettings = {
    // Wrapped once: every call the receiver, redrive and reconcile make to it is traced.
    store: tracedStore(store),
    now: resolved.now,
    dedupeTtlMs: resolved.dedupeTtlMs,
    leaseMs: resolved.leaseMs,
    handlerTimeoutMs: resolved.handlerTimeoutMs,
    denom: resolved.denom,
    confirm: resolved.confirm,
    onNotification: resolved.onNotification,
    report: errors.report,
  };
  /** Each payer's user, as the service names it: remembered across chain reconciles. */
  const payers = new PayerIds();
  /** The runs of reconcileChain(): one at a time, each from where the last left. */
  const chainRuns = new ChainReconciler(settings, payers);
  /** When a notification that passed the secret check last arrived (forged traffic does not count). */
  let lastNotificationAt: number | null = null;

  function refuse(error: KudosRefusal, req?: WebhookRequest): KudosReceiverAnswer {
    errors.report(error, req);
    return refusal(error);
  }

  async function accept(
    delivery: KudosDelivery,
    req: WebhookRequest | undefined,
    message: KudosNotificationMessage | undefined,
  ): Promise<KudosReceiverAnswer> {
    const secretOk = secrets
      ? secretMatches(delivery.url, header(delivery.headers, 'authorization'), secrets)
      : true;
    if (delivery.method.toUpperCase() !== 'POST')
      throw new KudosNotificationError('method_not_allowed', { message: 'use POST' });
    if (!secretOk)
      throw new KudosNotificationError('invalid_secret', { message: 'webhook secret is missing or wrong' });
    lastNotificationAt = resolved.now();
    const parsed = await readDeliveryBody(
      header(delivery.headers, 'content-type'),
      header(delivery.headers, 'content-length'),
      () => (typeof delivery.body === 'function' ? delivery.body() : delivery.body),
      maxBodyBytes,
      resolved.bodyTimeoutMs,
    );
    const { notification, outcome } = await runNotification(settings, {
      body: parsed,
      source: 'webhook',
      trusted: secrets !== undefined,
      req,
      message,
    });
    errors.works(notification.confirmed);
    const body: KudosReceiverAnswerBody =
      outcome === 'duplicate'
        ? { ok: true, duplicate: true, key: notification.key }
        : { ok: true, key: notification.key };
    return { ...json(200, body), notification };
  }

  return {
    secrets,
    maxBodyBytes,
    store,
    reconcileChainHash: (hash, read, concerns) =>
      reconcileChainTx(settings, read, hash, payers, concerns).then(
        (result) => {
          errors.lookupWorks();
          return result;
        },
        (error: unknown) => {
          errors.lookupFailed(error);
          throw error;
        },
      ),
    reconcileChainPlan: (plan, since) => readChain(settings, plan, since, chainRuns),
    receive: (delivery, req) =>
      observeNotification('notification', async (message) => {
        const answer = await accept(delivery, req, message).catch((caught: unknown) => {
          const error = asHandlerError(caught);
          recordFailure(message, error, false); // a failure of the pipeline was recorded by it already
          return refuse(error, req);
        });
        if (message) message.statusCode = answer.status;
        return answer;
      }),
    refuse: (error, req) => {
      const answer = refuse(error, req);
      // Traced as a refused notification too, as receive() would have.
      void observeNotification('notification', async (message) => {
        recordFailure(message, error, false);
        if (message) message.statusCode = answer.status;
      });
      return answer;
    },
    ...recoveryOf(settings, () => lastNotificationAt, errors.lookupError, chainRuns),
  };
}

/**
 * @internal A handler with its receiver and the receiver's recovery and health beside it: what every
 * adapter (and `kudosPayments()`) shows, defined once.
 */
export function withRecovery<H extends object>(
  handler: H,
  receiver: KudosReceiver,
): H & KudosRecovery & { readonly receiver: KudosReceiver } {
  return Object.assign(handler, {
    receiver,
    unprocessed: receiver.unprocessed,
    redrive: receiver.redrive,
    reconcileChain: receiver.reconcileChain,
    status: receiver.status,
  });
}

/** @internal Whether `value` is a receiver (as `kudosReceiver()` makes) rather than options. */
export function isReceiver(value: KudosReceiverOptions | KudosReceiver): value is ReceiverInternals {
  return typeof (value as Partial<KudosReceiver>).receive === 'function' && 'maxBodyBytes' in value;
}
