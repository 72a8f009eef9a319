import type { ServerResponse } from 'node:http';
import { readNotificationBody, type WebhookRequest } from './body.js';
import type { KudosConfirmer } from './confirm.js';
import { type KudosDedupeStore, MemoryDedupeStore } from './dedupe.js';
import { KudosWebhookError } from './errors.js';
import { parseKudosNotification } from './parse.js';
import { checkUrlSecret } from './secret.js';
import type { KudosNotification } from './types.js';

/** Default largest notification body: 64 kB. */
export const DEFAULT_WEBHOOK_LIMIT = 64 * 1024;
/** Default time a processed notification key is remembered: 7 days. */
export const DEFAULT_DEDUPE_TTL_MS = 7 * 24 * 3600 * 1000;
/** Default processing lease: a claim whose handler never finished expires after 5 minutes. */
export const DEFAULT_LEASE_MS = 5 * 60 * 1000;

/** Options of {@link kudosWebhook}. */
export interface KudosWebhookOptions {
  /** The application's handler; may be async. Throwing or rejecting answers 500 and forgets the key. */
  onNotification: (notification: KudosNotification, req: WebhookRequest) => void | Promise<void>;
  /** Secret(s) carried in the webhook URL (`?token=` or last path segment); several allow rotation. */
  secret?: string | readonly string[];
  /** Decides whether a notification is real before it is presented as paid (see `cosmosConfirmer`). */
  confirm?: KudosConfirmer;
  /** Dedupe store; default a `MemoryDedupeStore` (one process). */
  store?: KudosDedupeStore;
  /** How long a processed key is remembered; default 7 days. */
  dedupeTtlMs?: number;
  /** Processing lease of a claim; default 5 minutes. */
  leaseMs?: number;
  /** Largest body in bytes; default 64 kB. */
  limit?: number;
  /** Accept only this `tx.amount.denom` (422 `unexpected_denom` otherwise). */
  denom?: string;
  /** Told of every refused or failed delivery (for logging). Never given secrets. */
  onError?: (error: KudosWebhookError, req: WebhookRequest) => void;
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

function checkOptions(options: KudosWebhookOptions): readonly string[] | undefined {
  if (typeof options?.onNotification !== 'function') {
    throw new TypeError('kudosWebhook requires an "onNotification" function');
  }
  const secrets = options.secret === undefined ? undefined : [options.secret].flat();
  if (secrets && (secrets.length === 0 || !secrets.every((s) => typeof s === 'string' && s.length >= 16))) {
    throw new TypeError(
      'kudosWebhook option "secret" must be a string (or strings) of at least 16 characters',
    );
  }
  for (const name of ['limit', 'dedupeTtlMs', 'leaseMs'] as const) {
    const value = options[name];
    if (value !== undefined && !(typeof value === 'number' && value > 0)) {
      throw new TypeError(`kudosWebhook option "${name}" must be a positive number`);
    }
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

function asWebhookError(error: unknown): KudosWebhookError {
  return error instanceof KudosWebhookError
    ? error
    : new KudosWebhookError(
        'handler_failed',
        'the notification could not be processed; it will be accepted on redelivery',
        undefined,
        error,
      );
}

/**
 * Express middleware (also a plain `node:http` handler) that receives Kudos payment notifications:
 * checks the URL secret, reads the body (whether or not `express.json()` ran), validates it,
 * processes each event key (`txHash:status`) once, confirms it when asked, and calls
 * `onNotification`. Answers 200 for processed and duplicate deliveries, and the status of
 * `WEBHOOK_ERROR_STATUS` with `{ error, code, path }` for anything refused.
 *
 * @see ../shared/spec/interface.md section 6
 */
export function kudosWebhook(options: KudosWebhookOptions): KudosWebhookHandler {
  const secrets = checkOptions(options);
  const store = options.store ?? new MemoryDedupeStore();
  const limit = options.limit ?? DEFAULT_WEBHOOK_LIMIT;
  const ttl = options.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS;
  const lease = options.leaseMs ?? DEFAULT_LEASE_MS;

  function refuse(req: WebhookRequest, res: ServerResponse, error: KudosWebhookError): void {
    options.onError?.(error, req);
    const headers: Record<string, string> = {};
    if (error.code === 'method_not_allowed') headers.allow = 'POST';
    if (error.code === 'payload_too_large') headers.connection = 'close';
    if (error.status === 503) headers['retry-after'] = '5';
    const body = { error: error.message, code: error.code, ...(error.path ? { path: error.path } : {}) };
    answer(res, error.status, body, headers);
  }

  async function confirmNotification(
    notification: KudosNotification,
    confirm: KudosConfirmer,
  ): Promise<void> {
    // Called inside an async function, so a confirmer that throws synchronously is caught too.
    const result = await (async () => confirm(notification))().catch((cause: unknown) => {
      throw cause instanceof KudosWebhookError
        ? cause
        : new KudosWebhookError(
            'confirmation_unavailable',
            'confirmation failed; retry later',
            undefined,
            cause,
          );
    });
    const verdict = typeof result === 'boolean' ? { confirmed: result } : result;
    notification.confirmed = verdict.confirmed === true;
    if (!notification.confirmed && verdict.reason) notification.confirmationReason = verdict.reason;
    notification.paid = notification.confirmed && notification.tx.status === 'success';
  }

  async function receive(req: WebhookRequest, res: ServerResponse): Promise<void> {
    let claimed: string | undefined;
    try {
      // The secret is checked and redacted first, before anything else sees the URL.
      const secretOk = secrets ? checkUrlSecret(req, secrets) : true;
      if (req.method !== 'POST') throw new KudosWebhookError('method_not_allowed', 'use POST');
      if (!secretOk) throw new KudosWebhookError('invalid_secret', 'webhook secret is missing or wrong');
      const notification = parseKudosNotification(await readNotificationBody(req, limit));
      if (options.denom !== undefined && notification.tx.amount.denom !== options.denom) {
        throw new KudosWebhookError(
          'unexpected_denom',
          `"tx.amount.denom" must be "${options.denom}"`,
          'tx.amount.denom',
        );
      }
      // A store with complete() takes a short lease first; one without it claims for the whole TTL.
      // Called inside async functions, so that a store throwing synchronously is handled too.
      const fresh = await (async () => store.claim(notification.key, store.complete ? lease : ttl))().catch(
        (cause: unknown) => {
          throw new KudosWebhookError(
            'store_unavailable',
            'dedupe store is unavailable; retry later',
            undefined,
            cause,
          );
        },
      );
      if (!fresh) return answer(res, 200, { ok: true, duplicate: true, key: notification.key });
      claimed = notification.key;
      if (options.confirm) await confirmNotification(notification, options.confirm);
      await options.onNotification(notification, req);
      claimed = undefined;
      await (async () => store.complete?.(notification.key, ttl))().catch((cause: unknown) => {
        // Processed already: answer 200; the lease still guards against a quick redelivery.
        const error = new KudosWebhookError(
          'store_unavailable',
          'could not mark the notification processed',
          undefined,
          cause,
        );
        options.onError?.(error, req);
      });
      answer(res, 200, { ok: true, key: notification.key });
    } catch (caught) {
      const key = claimed;
      if (key) await (async () => store.release(key))().catch(() => undefined); // else the lease expires
      refuse(req, res, asWebhookError(caught));
    }
  }

  const handler = (req: WebhookRequest, res: ServerResponse): void => {
    void receive(req, res);
  };
  const errorHandler: KudosWebhookErrorHandler = (err, req, res, next) => {
    const type = typeof err === 'object' && err !== null && 'type' in err ? String(err.type) : '';
    const make = BODY_PARSER_ERRORS[type];
    if (!make) return next(err);
    if (secrets) checkUrlSecret(req, secrets); // redact before onError sees the URL
    refuse(req, res, make());
  };
  return Object.assign(handler, { errorHandler });
}
