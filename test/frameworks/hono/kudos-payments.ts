// Hono on Node: orders paid through the Kudos widget with kudosPayments(), served by
// @hono/node-server's serve() (docs/frameworks.md shows this file, tested as is against the emulator).
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { type KudosPaymentsOptions, kudosPayments } from 'kudos-payments';

export function buildPaymentsApp(options: KudosPaymentsOptions) {
  const payments = kudosPayments(options);
  const app = new Hono();
  // A new order: the payer is sent to the Kudos widget with its link.
  app.post('/orders', async (c) => {
    const { url } = await payments.createOrder({
      amount: '2',
      redirectURI: new URL('/paid', c.req.url).href,
    });
    return c.redirect(url, 303);
  });
  // The agent's webhook (every method: the receiver answers anything but POST itself).
  app.all('/webhooks/kudos', (c) => payments.fetch(c.req.raw));
  // The return page: the widget comes back with tx_hash and state (the order's reference).
  app.get('/paid', async (c) => {
    const reference = c.req.query('state') ?? '';
    const txHash = c.req.query('tx_hash') ?? '';
    const { status } = await payments.check({ reference, txHash });
    return c.text(status === 'paid' ? 'Thank you: paid.' : `Not paid yet (${status}).`);
  });
  app.get('/healthz', async (c) => c.json(await payments.status()));
  return { app, payments };
}

/** Serves the app on Node with @hono/node-server; resolves with its port once it listens. */
export function servePaymentsApp(app: Hono, port = 3000): Promise<{ port: number; close: () => void }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve({ port: info.port, close: () => server.close() }),
    );
  });
}
