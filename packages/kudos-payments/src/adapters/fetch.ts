import { readBodyStream } from '../core/body.js';
import { type KudosReceiverOptions, resolveReceiverOptions } from '../options.js';
import {
  createReceiver,
  isReceiver,
  type KudosReceiver,
  type ReceiverInternals,
  withRecovery,
} from '../receiver.js';

// The receiver's Fetch adapter: a `Request` in, a `Response` out, for the runtimes and frameworks
// built on the Fetch API (Next.js route handlers, Hono, Bun.serve, Deno.serve, Cloudflare-style
// handlers). The work is the framework-free receiver's (receiver.ts).

/** A Fetch handler of Kudos notifications, with the receiver's recovery and health beside it. */
export interface KudosWebhookFetchHandler extends Omit<KudosReceiver, 'receive' | 'refuse'> {
  (request: Request): Promise<Response>;
  /** The framework-free receiver under this handler. */
  readonly receiver: KudosReceiver;
}

/**
 * The receiver as a Fetch handler: `(request: Request) => Promise<Response>`, answering exactly what
 * `kudosWebhook()` answers (the same statuses, headers and JSON). Takes the options of
 * `kudosWebhook()`, or the receiver of one (`hook.receiver`, `payments.webhook.receiver`) to share its
 * store and recovery. `onNotification` and `onError` get no Node request (`req` is undefined).
 *
 * @example
 * ```ts
 * // Next.js, app/webhooks/kudos/route.ts
 * import { cosmosConfirmer, kudosWebhookFetch } from 'kudos-payments';
 * export const POST = kudosWebhookFetch({
 *   secret: process.env.KUDOS_WEBHOOK_SECRET ?? 'at-least-16-characters',
 *   confirm: cosmosConfirmer({ restURL: 'https://chain.example/lcd', wallet: 'kudos10w0466xcvg0sgfhynvj5nlcdzhqzrnc4gkegml' }),
 *   onNotification: (n) => console.log(n.tx.txHash),
 * });
 * ```
 */
export function kudosWebhookFetch(options: KudosReceiverOptions | KudosReceiver): KudosWebhookFetchHandler {
  return fetchHandler(
    isReceiver(options)
      ? options
      : createReceiver(resolveReceiverOptions(options as KudosReceiverOptions, 'kudosWebhookFetch')),
  );
}

/** @internal The Fetch adapter around a receiver. */
export function fetchHandler(receiver: ReceiverInternals): KudosWebhookFetchHandler {
  const handler = async (request: Request): Promise<Response> => {
    const answer = await receiver.receive({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: () => (request.body ? readBodyStream(request.body, receiver.maxBodyBytes) : ''),
    });
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
  };
  return withRecovery(handler, receiver);
}
