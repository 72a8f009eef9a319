// Hono (or any Fetch-style router: Next.js route handlers, Bun.serve, Deno.serve): Kudos payment
// notifications through the Fetch adapter (docs/frameworks.md shows this file, tested as is).
import { Hono } from 'hono';
import { type KudosReceiverOptions, kudosWebhookFetch } from 'kudos-payments';

export function buildWebhookApp(options: KudosReceiverOptions) {
  const webhook = kudosWebhookFetch(options); // (request: Request) => Promise<Response>
  const app = new Hono();
  // Every method: the receiver answers anything but POST itself (405, Allow: POST).
  app.all('/webhooks/kudos', (c) => webhook(c.req.raw));
  // Recovery and health, on the handler as on kudosWebhook()'s.
  app.get('/healthz', async (c) => c.json(await webhook.status()));
  return { app, webhook };
}
