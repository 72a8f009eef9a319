import type { ServerResponse } from 'node:http';
import { isObjectLike } from '../base/guards.js';
import { checkPositive } from '../base/numbers.js';
import { MIN_WEBHOOK_SECRET_LENGTH } from '../base/redact.js';
import type { KudosNotificationMessage } from '../base/trace.js';
import { readNotificationBody, type WebhookRequest } from './body.js';
import type { KudosConfirmer } from './confirm.js';
import type { KudosDedupeStore, KudosUnprocessedNotification } from './dedupe.js';
import { KudosWebhookError } from './errors.js';
import { MemoryDedupeStore } from './memory-store/memory-dedupe-store.js';
import { observeNotification, recordFailure } from './observe.js';
import { type KudosNotificationHandler, type PipelineSettings, runNotification } from './pipeline.js';
import { asHandlerError } from './process-once.js';
import {
  type KudosReconcileHistory,
  type KudosReconcileResult,
  type KudosReconcileTransaction,
  reconcile,
} from './reconcile.js';
import { type KudosRedriveResult, listUnprocessed, redrive } from './recovery.js';
import { checkSecret } from './secret.js';
import { type KudosWebhookStatus, readStatus } from './status.js';

/** Default largest notification body: 64 kB. */
const DEFAULT_WEBHOOK_LIMIT = 64 * 1024;
/** Default time a processed notification key is remembered: 7 days. */
const DEFAULT_DEDUPE_TTL_MS = 7 * 24 * 3600 * 1000;
/** Default processing lease: renewed while the handler runs; a crashed process's claim expires after it. */
const DEFAULT_LEASE_MS = 60 * 1000;
/** Default longest wait for the handler before answering 503 `handler_timeout`. */
const DEFAULT_HANDLER_TIMEOUT_MS = 25 * 1000;
/** Seconds a sender is asked to wait (`Retry-After`) before retrying a 409 or 503. */
const RETRY_AFTER_S = '5';

/** Options of {@link kudosWebhook}. */
export interface KudosWebhookOptions {
  /**
   * The application's handler; may be async. Throwing or rejecting answers 500 and releases the key
   * (the notification stays kept for `redrive()`). `req` is the delivery's request, undefined when
   * `redrive()` or `reconcile()` runs it. Make it idempotent by `txHash`: processing is at least once.
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
  limit?: number;
  /** Accept only this `tx.amount.denom` (422 `unexpected_denom` otherwise). */
  denom?: string;
  /** Told of every refused or failed delivery, redrive or reconcile (for logging). Never given secrets. */
  onError?: (error: KudosWebhookError, req: WebhookRequest | undefined) => void;
}

/** Express error middleware: `(err, req, res, next)`. */
export type KudosWebhookErrorHandler = (
  err: unknown,
  req: WebhookRequest,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/**
 * The middleware: Express (`app.post(path, hook)`) or a plain `node:http` handler. Its
 * `errorHandler` answers the errors of an `express.json()` mounted before it in the receiver's
 * own format: `app.use(path, hook.errorHandler)`.
 */
export interface KudosWebhookHandler {
  (req: WebhookRequest, res: ServerResponse, next?: (err?: unknown) => void): void;
  errorHandler: KudosWebhookErrorHandler;
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
   * Fetches transaction records from the service (one by hash, or a user's since a time) and
   * processes each like a delivery, under the same keys: for what never arrived.
   */
  reconcile(args: KudosReconcileTransaction | KudosReconcileHistory): Promise<KudosReconcileResult>;
  /**
   * The receiver's health, for a `/healthz` route: how many notifications wait unprocessed and the
   * age of the oldest, when one last arrived, and whether the store answers. Never rejects.
   */
  status(): Promise<KudosWebhookStatus>;
}

/** Whether the production warning about the default store was given (once per process). */
let warnedMemoryStore = false;

/** The code of that warning (a process warning, not an error: it refuses nothing). */
const MEMORY_STORE_WARNING = 'KUDOS_MEMORY_DEDUPE_STORE';

/**
 * In production, a receiver on the default memory store is told once that what it keeps does not
 * survive a restart: a crash then loses the payments the handler had not processed.
 */
function warnMemoryStore(): void {
  if (warnedMemoryStore || process.env.NODE_ENV !== 'production') return;
  warnedMemoryStore = true;
  process.emitWarning(
    'kudosWebhook() runs on the default MemoryDedupeStore: the notifications it keeps for redrive() do not survive a restart. Pass a durable "store": SqliteDedupeStore (passport-kudos/sqlite) for one instance, RedisDedupeStore for several.',
    { type: 'KudosWarning', code: MEMORY_STORE_WARNING },
  );
}

/** body-parser error types and what the receiver makes of them. */
const BODY_PARSER_ERRORS: Record<string, () => KudosWebhookError> = {
  'entity.parse.failed': () =>
    new KudosWebhookError(
      'invalid_json',
      'notification body is not valid JSON (empty, truncated or malformed)',
    ),
  'entity.too.large': () =>
    new KudosWebhookError('payload_too_large', 'notification body is larger than the body parser allows'),
  'charset.unsupported': () =>
    new KudosWebhookError('unsupported_media_type', 'Content-Type must be application/json (UTF-8)'),
  'encoding.unsupported': () =>
    new KudosWebhookError('unsupported_media_type', 'Content-Encoding is not supported'),
  'request.aborted': () => new KudosWebhookError('invalid_json', 'notification body was cut off'),
  'stream.not.readable': () =>
    new KudosWebhookError(
      'body_already_consumed',
      'the request body was read by another middleware that kept nothing',
    ),
};

function checkSecrets(secret: unknown): readonly string[] | undefined {
  if (secret === false) return undefined;
  const secrets: unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  if (
    secrets.length === 0 ||
    !secrets.every((s) => typeof s === 'string' && s.length >= MIN_WEBHOOK_SECRET_LENGTH)
  ) {
    throw new TypeError(
      'kudosWebhook option "secret" must be a string (or strings) of at least 16 characters; it is missing or too short (pass secret: false to run without one)',
    );
  }
  return secrets as string[];
}

function checkOptions(options: KudosWebhookOptions): readonly string[] | undefined {
  if (typeof options?.onNotification !== 'function') {
    throw new TypeError('kudosWebhook requires an "onNotification" function');
  }
  const secrets = checkSecrets(options.secret);
  for (const name of ['limit', 'dedupeTtlMs', 'leaseMs', 'handlerTimeoutMs'] as const) {
    const value = options[name];
    if (value !== undefined) checkPositive(value, `kudosWebhook option "${name}"`);
  }
  return secrets;
}

function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

/**
 * Express middleware (also a plain `node:http` handler) that receives Kudos payment notifications:
 * checks the URL secret, reads the body (whether or not `express.json()` ran), validates it,
 * processes each event key (`txHash:status`) once, confirms it when asked, and calls
 * `onNotification`. Answers 200 for processed and duplicate deliveries, and the status of
 * `WEBHOOK_ERROR_STATUS` with `{ error, code, path }` for anything refused.
 *
 * @see docs/kudos-service.md#notifications
 */
export function kudosWebhook(options: KudosWebhookOptions): KudosWebhookHandler {
  const secrets = checkOptions(options);
  if (!options.store) warnMemoryStore();
  const store = options.store ?? new MemoryDedupeStore();
  const limit = options.limit ?? DEFAULT_WEBHOOK_LIMIT;
  const ttl = options.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS;
  const lease = options.leaseMs ?? DEFAULT_LEASE_MS;
  const handlerTimeout = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
  const onError = (error: KudosWebhookError, req: WebhookRequest | undefined): void => {
    try {
      options.onError?.(error, req);
    } catch {
      // A logger that throws must not change the answer.
    }
  };

  function refuse(req: WebhookRequest, res: ServerResponse, error: KudosWebhookError): void {
    onError(error, req);
    const headers: Record<string, string> = {};
    if (error.code === 'method_not_allowed') headers.allow = 'POST';
    if (error.code === 'payload_too_large') headers.connection = 'close';
    if (error.status === 503 || error.status === 409) headers['retry-after'] = RETRY_AFTER_S;
    const body = { error: error.message, code: error.code, ...(error.path ? { path: error.path } : {}) };
    answer(res, error.status, body, headers);
  }

  const settings: PipelineSettings = {
    store,
    ttlMs: ttl,
    leaseMs: lease,
    timeoutMs: handlerTimeout,
    denom: options.denom,
    confirm: options.confirm,
    onNotification: options.onNotification,
    report: onError,
  };

  /** When a notification that passed the secret check last arrived (forged traffic does not count). */
  let lastNotificationAt: number | null = null;

  async function receive(
    req: WebhookRequest,
    res: ServerResponse,
    message: KudosNotificationMessage | undefined,
  ): Promise<void> {
    try {
      // The secret is checked and redacted first, before anything else sees the URL.
      const secretOk = secrets ? checkSecret(req, secrets) : true;
      if (req.method !== 'POST') throw new KudosWebhookError('method_not_allowed', 'use POST');
      if (!secretOk) throw new KudosWebhookError('invalid_secret', 'webhook secret is missing or wrong');
      lastNotificationAt = Date.now();
      const body = await readNotificationBody(req, limit);
      const { notification, outcome } = await runNotification(settings, {
        body,
        source: 'webhook',
        trusted: secrets !== undefined,
        req,
        message,
      });
      if (message) message.statusCode = 200;
      if (outcome === 'duplicate') answer(res, 200, { ok: true, duplicate: true, key: notification.key });
      else answer(res, 200, { ok: true, key: notification.key });
    } catch (caught) {
      const error = asHandlerError(caught);
      recordFailure(message, error, false); // a failure of the pipeline was recorded by it already
      if (message) message.statusCode = error.status;
      refuse(req, res, error);
    }
  }

  const handler = (req: WebhookRequest, res: ServerResponse): void => {
    // receive() answers every error itself
    observeNotification('notification', (message) => receive(req, res, message)).catch(() => undefined);
  };
  const errorHandler: KudosWebhookErrorHandler = (err, req, res, next) => {
    const type = isObjectLike(err) && 'type' in err ? String(err.type) : '';
    const make = BODY_PARSER_ERRORS[type];
    if (!make) return next(err);
    if (secrets) checkSecret(req, secrets); // redact before onError sees the URL
    const error = make();
    void observeNotification('notification', async (message) => {
      recordFailure(message, error, false);
      if (message) message.statusCode = error.status;
      refuse(req, res, error);
    });
  };
  return Object.assign(handler, {
    errorHandler,
    unprocessed: () => listUnprocessed(store, settings.report),
    redrive: () => redrive(settings),
    reconcile: (args: KudosReconcileTransaction | KudosReconcileHistory) => reconcile(settings, args),
    // A record the store cannot read is told by unprocessed() and redrive(), not at every health poll.
    status: () =>
      readStatus(
        async () => (await listUnprocessed(store, () => undefined)).map((n) => ({ since: n.receivedAt })),
        lastNotificationAt,
        Date.now(),
      ),
  });
}
