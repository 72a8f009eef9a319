import type { ServerResponse } from 'node:http';
import { isObjectLike } from 'kudos-core';
import { nodeRequestBody, type WebhookRequest } from '../core/body.js';
import { KudosNotificationError } from '../core/errors.js';
import { redactRequest } from '../core/secret.js';
import { type KudosReceiverOptions, resolveReceiverOptions } from '../options.js';
import {
  createReceiver,
  type KudosReceiver,
  type KudosReceiverAnswer,
  type ReceiverInternals,
  withRecovery,
} from '../receiver.js';

// The receiver's Node adapter: Express 4 and 5, NestJS (Express), Fastify (its raw request), or a
// plain node:http server. The work is the framework-free receiver's (receiver.ts); this file reads a
// Node request into a delivery and writes the answer back.

export type { KudosReceiverOptions } from '../options.js';

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
 * own format: `app.use(path, hook.errorHandler)`. The receiver's recovery and health
 * (`unprocessed`, `redrive`, `reconcile`, `status`) are on it too, and on `hook.receiver`.
 */
export interface KudosWebhookHandler extends Omit<KudosReceiver, 'receive' | 'refuse'> {
  (req: WebhookRequest, res: ServerResponse, next?: (err?: unknown) => void): void;
  errorHandler: KudosWebhookErrorHandler;
  /** The framework-free receiver under this middleware (for a Fetch adapter of the same one: `kudosWebhookFetch(hook.receiver)`). */
  readonly receiver: KudosReceiver;
}

/** body-parser error types and what the receiver makes of them. */
const BODY_PARSER_ERRORS: Record<string, (err: object) => KudosNotificationError> = {
  'entity.parse.failed': () =>
    new KudosNotificationError('invalid_json', {
      message: 'notification body is not valid JSON (empty, truncated or malformed)',
    }),
  // body-parser says its limit: the message is then the receiver's own, word for word.
  'entity.too.large': (err) =>
    new KudosNotificationError('payload_too_large', {
      message:
        'limit' in err && typeof err.limit === 'number'
          ? `notification body is larger than ${err.limit} bytes`
          : 'notification body is larger than the body parser allows',
    }),
  'charset.unsupported': () =>
    new KudosNotificationError('unsupported_media_type', {
      message: 'Content-Type must be application/json (UTF-8)',
    }),
  'encoding.unsupported': () =>
    new KudosNotificationError('unsupported_media_type', { message: 'Content-Encoding is not supported' }),
  'request.aborted': () =>
    new KudosNotificationError('invalid_json', { message: 'notification body was cut off' }),
  'stream.not.readable': () =>
    new KudosNotificationError('body_already_consumed', {
      message: 'the request body was read by another middleware that kept nothing',
    }),
};

/** Writes an answer, unless one was written already. */
function write(res: ServerResponse, answer: KudosReceiverAnswer): void {
  if (res.headersSent) return;
  res.writeHead(answer.status, answer.headers);
  res.end(JSON.stringify(answer.body));
}

/**
 * Express middleware (also a plain `node:http` handler) that receives Kudos payment notifications:
 * checks the URL secret, reads the body (whether or not `express.json()` ran), validates it,
 * processes each event key (`txHash:status`) once, confirms it when asked, and calls
 * `onNotification`. Answers 200 for processed and duplicate deliveries, and the status of
 * `NOTIFICATION_ERROR_STATUS` with `{ error, code, path }` for anything refused.
 *
 * @see docs/kudos-service.md#notifications
 */
export function kudosWebhook(options: KudosReceiverOptions): KudosWebhookHandler {
  return nodeHandler(createReceiver(resolveReceiverOptions(options, 'kudosWebhook')));
}

/** @internal The Node adapter around a receiver. */
export function nodeHandler(receiver: ReceiverInternals): KudosWebhookHandler {
  const { secrets, maxBodyBytes } = receiver;

  const handler = (req: WebhookRequest, res: ServerResponse): void => {
    // The secret is read from the URL as sent, then redacted before anything else sees the request.
    const url = req.originalUrl ?? req.url ?? '/';
    if (secrets) redactRequest(req, secrets);
    const delivery = {
      method: req.method ?? 'GET',
      url,
      headers: req.headers,
      body: () => nodeRequestBody(req, maxBodyBytes),
    };
    // receive() answers every problem itself.
    receiver.receive(delivery, req).then(
      (answer) => write(res, answer),
      () => undefined,
    );
  };
  const errorHandler: KudosWebhookErrorHandler = (err, req, res, next) => {
    const type = isObjectLike(err) && 'type' in err ? String(err.type) : '';
    const make = BODY_PARSER_ERRORS[type];
    if (!make) return next(err);
    if (secrets) redactRequest(req, secrets); // before onError sees the URL
    write(res, receiver.refuse(make(err as object), req));
  };
  return withRecovery(Object.assign(handler, { errorHandler }), receiver);
}
