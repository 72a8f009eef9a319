// Fastify: Kudos payment notifications through the framework-free receiver (docs/frameworks.md shows
// this file, tested as is). The receiver reads the body itself: the route takes it as raw bytes.
import Fastify, { type FastifyInstance } from 'fastify';
import type { KudosReceiver } from 'kudos-payments';

export async function buildWebhookApp(receiver: KudosReceiver): Promise<FastifyInstance> {
  const app = Fastify();
  // In a plugin of its own, so the rest of the app keeps Fastify's JSON parser.
  await app.register(async (webhooks) => {
    webhooks.removeAllContentTypeParsers();
    webhooks.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    webhooks.all('/webhooks/kudos', async (request, reply) => {
      const answer = await receiver.receive({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: request.body ?? '',
      });
      return reply.code(answer.status).headers(answer.headers).send(JSON.stringify(answer.body));
    });
  });
  return app;
}
