import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError, isObjectLike, readCapped } from 'kudos-core';
import { KudosNotificationError } from './errors.js';

/** A request as Express or plain `node:http` hands it to the receiver. */
export interface WebhookRequest extends IncomingMessage {
  body?: unknown;
  originalUrl?: string;
  /** Set by body-parser (express.json, express.raw...) when it has read the body. */
  _body?: boolean;
}

/** Throws `unsupported_media_type` unless the `Content-Type` declares JSON in UTF-8. */
function checkMediaType(contentType: string | null | undefined): void {
  const header = String(contentType ?? '');
  const [type = '', ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  const json = type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (!json || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new KudosNotificationError('unsupported_media_type', {
      message: header
        ? `Content-Type must be application/json (UTF-8), not "${header.slice(0, 100)}"`
        : 'Content-Type application/json is required',
    });
  }
}

function tooLarge(maxBodyBytes: number): KudosNotificationError {
  return new KudosNotificationError('payload_too_large', {
    message: `notification body is larger than ${maxBodyBytes} bytes`,
  });
}

/** A body stream (a Node request's, or a Fetch `Request`'s), read up to `maxBodyBytes` bytes. */
export async function readBodyStream(
  source: IncomingMessage | ReadableStream<Uint8Array>,
  maxBodyBytes: number,
): Promise<Buffer> {
  try {
    return await readCapped(source, maxBodyBytes, 'reject');
  } catch (cause) {
    if (cause instanceof BodyTooLargeError) throw tooLarge(cause.limit);
    throw new KudosNotificationError('invalid_json', { message: 'notification body was cut off', cause });
  }
}

/** Parses JSON text; an empty, truncated or malformed body is `invalid_json` (400). */
function parseJsonText(bytes: Buffer | string): unknown {
  let text: string;
  try {
    text = typeof bytes === 'string' ? bytes : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new KudosNotificationError('invalid_json', { message: 'notification body is not valid UTF-8' });
  }
  if (text.trim() === '')
    throw new KudosNotificationError('invalid_json', { message: 'notification body is empty' });
  try {
    return JSON.parse(text);
  } catch {
    throw new KudosNotificationError('invalid_json', {
      message: 'notification body is not valid JSON (empty, truncated or malformed)',
    });
  }
}

/** Throws unless the declared `Content-Length` (when there is one) fits `maxBodyBytes` and is not 0. */
function checkDeclaredLength(contentLength: string | null | undefined, maxBodyBytes: number): void {
  if (contentLength === null || contentLength === undefined || contentLength === '') return;
  const declared = Number(contentLength);
  if (declared > maxBodyBytes) throw tooLarge(maxBodyBytes);
  if (declared === 0)
    throw new KudosNotificationError('invalid_json', { message: 'notification body is empty' });
}

/**
 * The notification body as JSON: bytes or text are checked against `maxBodyBytes` and parsed; JSON a
 * framework parsed already (an object) is used as it is.
 */
function parseNotificationBody(body: unknown, maxBodyBytes: number): unknown {
  if (body instanceof Uint8Array || typeof body === 'string') {
    if ((typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) > maxBodyBytes)
      throw tooLarge(maxBodyBytes);
    return parseJsonText(
      typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    );
  }
  if (isObjectLike(body)) return body;
  throw new KudosNotificationError('invalid_json', { message: 'notification body is empty' });
}

/**
 * A Node request's body, whether or not a body parser ran before: an object from `express.json()`
 * as it is, a Buffer or string from `express.raw()` or `express.text()` as they are, and an unread
 * stream read here, up to `maxBodyBytes` bytes.
 */
export async function nodeRequestBody(req: WebhookRequest, maxBodyBytes: number): Promise<unknown> {
  const parsedByOthers = req._body === true || req.readableEnded;
  if (!parsedByOthers) return readBodyStream(req, maxBodyBytes);
  const { body } = req;
  if (Buffer.isBuffer(body) || typeof body === 'string' || isObjectLike(body)) return body;
  throw new KudosNotificationError('body_already_consumed', {
    message:
      'the request body was read by another middleware that kept nothing: mount kudosWebhook() before it, or after express.json()',
  });
}

/**
 * A delivery's body as parsed JSON: its media type and declared length checked first, then `read`
 * (its bytes, text, or JSON a framework parsed) parsed, up to `maxBodyBytes` bytes.
 */
export async function readDeliveryBody(
  contentType: string | undefined,
  contentLength: string | undefined,
  read: () => unknown,
  maxBodyBytes: number,
  timeoutMs?: number,
): Promise<unknown> {
  checkMediaType(contentType);
  checkDeclaredLength(contentLength, maxBodyBytes);
  const body = timeoutMs === undefined ? await read() : await withinTime(read, timeoutMs);
  return parseNotificationBody(body, maxBodyBytes);
}

/** `read()`, or `body_timeout` (408) when it takes longer than `ms`: a body that drips holds nothing. */
function withinTime(read: () => unknown, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new KudosNotificationError('body_timeout', {
            message: `notification body was not received within ${ms} ms`,
          }),
        ),
      ms,
    );
  });
  return Promise.race([Promise.resolve().then(read), late]).finally(() => clearTimeout(timer));
}

/** Gets a Node request's notification body as parsed JSON ({@link readDeliveryBody} of {@link nodeRequestBody}). */
export function readNotificationBody(req: WebhookRequest, maxBodyBytes: number): Promise<unknown> {
  return readDeliveryBody(
    req.headers['content-type'],
    req.headers['content-length'],
    () => nodeRequestBody(req, maxBodyBytes),
    maxBodyBytes,
  );
}
