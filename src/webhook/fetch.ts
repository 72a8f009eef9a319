import { BodyTooLargeError, readCapped } from '../base/read-capped.js';
import { KudosWebhookError } from './errors.js';
import type { KudosWebhookOptions } from './options.js';
import { createReceiver, type KudosReceiver, type ReceiverInternals } from './receiver.js';

// The receiver's Fetch adapter: a `Request` in, a `Response` out, for the runtimes and frameworks
// built on the Fetch API (Next.js route handlers, Hono, Bun.serve, Deno.serve, Cloudflare-style
// handlers). The work is the framework-free receiver's (receiver.ts).

/** A Fetch handler of Kudos notifications, with the receiver's recovery and health beside it. */
export interface KudosWebhookFetchHandler extends Omit<KudosReceiver, 'receive' | 'refuse'> {
  (request: Request): Promise<Response>;
  /** The framework-free receiver under this handler. */
  readonly receiver: KudosReceiver;
}

/** The body of a Fetch request, read up to `limit` bytes; a longer one is `payload_too_large`. */
async function fetchBody(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  try {
    return await readCapped(request.body, limit, 'reject');
  } catch (cause) {
    if (cause instanceof BodyTooLargeError) {
      throw new KudosWebhookError('payload_too_large', `notification body is larger than ${limit} bytes`);
    }
    throw new KudosWebhookError('invalid_json', 'notification body was cut off', undefined, cause);
  }
}

function isReceiver(value: KudosWebhookOptions | KudosReceiver): value is ReceiverInternals {
  return typeof (value as Partial<KudosReceiver>).receive === 'function' && 'limit' in value;
}

/**
 * The receiver as a Fetch handler: `(request: Request) => Promise<Response>`, answering exactly what
 * `kudosWebhook()` answers (the same statuses, headers and JSON). Takes the options of
 * `kudosWebhook()`, or the receiver of one (`hook.receiver`, `payments.webhook.receiver`) to share its
 * store and recovery. `onNotification` and `onError` get no Node request (`req` is undefined).
 *
 * @example
 * // Next.js, app/webhooks/kudos/route.ts
 * export const POST = kudosWebhookFetch({ secret, confirm, store, onNotification });
 */
export function kudosWebhookFetch(options: KudosWebhookOptions | KudosReceiver): KudosWebhookFetchHandler {
  const receiver = isReceiver(options) ? options : createReceiver(options as KudosWebhookOptions);
  const handler = async (request: Request): Promise<Response> => {
    const answer = await receiver.receive({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: () => fetchBody(request, receiver.limit),
    });
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
  };
  return Object.assign(handler, {
    receiver: receiver as KudosReceiver,
    unprocessed: receiver.unprocessed,
    redrive: receiver.redrive,
    reconcile: receiver.reconcile,
    status: receiver.status,
  });
}
