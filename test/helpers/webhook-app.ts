import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import {
  type KudosNotification,
  type KudosReceiverOptions,
  kudosWebhook,
  type WebhookRequest,
} from '../../packages/kudos-payments/src/index.js';

/** How the receiver is mounted. */
export const WEBHOOK_MOUNTS = [
  'express4',
  'express5',
  'express4+json',
  'express5+json',
  'express5+raw',
  'node:http',
] as const;
export type WebhookMount = (typeof WEBHOOK_MOUNTS)[number];

/** One call of the application's handler. */
export interface HandlerCall {
  notification: KudosNotification;
  url: string | undefined;
  originalUrl: string | undefined;
}

/** A running app with the receiver at `/webhooks/kudos` (and `/webhooks/kudos/:secret`). */
export interface WebhookApp {
  url: string;
  calls: HandlerCall[];
  close: () => Promise<void>;
}

/** Options: the receiver's, with onNotification optional (default: record the call). */
export type WebhookAppOptions = Omit<KudosReceiverOptions, 'onNotification' | 'secret'> & {
  onNotification?: KudosReceiverOptions['onNotification'];
  /** Default `false`: most tests are about something other than the secret. */
  secret?: KudosReceiverOptions['secret'];
  /** Runs before the receiver (e.g. a middleware that consumes the body). */
  before?: (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;
};

async function expressApp(
  mount: WebhookMount,
  handler: ReturnType<typeof kudosWebhook>,
  options: WebhookAppOptions,
) {
  const mod = mount.startsWith('express4') ? await import('express4') : await import('express5');
  const express = mod.default;
  const app: Express = express();
  if (options.before) app.use(options.before);
  if (mount.endsWith('+json')) app.use(express.json());
  if (mount.endsWith('+raw')) app.use(express.raw({ type: 'application/json' }));
  app.all('/webhooks/kudos', handler);
  app.all('/webhooks/kudos/:secret', handler);
  app.use('/webhooks/kudos', handler.errorHandler);
  return http.createServer(app);
}

/** Starts the receiver on 127.0.0.1:0 mounted as `mount`. */
export async function startWebhookApp(
  mount: WebhookMount,
  options: WebhookAppOptions = {},
): Promise<WebhookApp> {
  const calls: HandlerCall[] = [];
  const record = (notification: KudosNotification, req: WebhookRequest | undefined) => {
    calls.push({ notification, url: req?.url, originalUrl: req?.originalUrl });
  };
  const handler = kudosWebhook({
    ...options,
    secret: options.secret ?? false,
    onNotification: options.onNotification ?? record,
  });
  const server =
    mount === 'node:http'
      ? http.createServer((req, res) => {
          if (options.before) options.before(req, res, () => handler(req, res));
          else handler(req, res);
        })
      : await expressApp(mount, handler, options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/kudos`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** POSTs a body (object as JSON, or raw text) and returns status, headers and parsed JSON. */
export async function deliver(
  url: string,
  body: unknown,
  init: { contentType?: string | null; method?: string } = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  const contentType = init.contentType === undefined ? 'application/json' : init.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  const method = init.method ?? 'POST';
  const res = await fetch(url, {
    method,
    headers,
    // Bytes, not a string: fetch would add its own text/plain content type to a string body.
    body:
      method === 'GET' || method === 'HEAD'
        ? undefined
        : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : {} };
}
