import { buildApp } from './fastify/kudos-auth.js';
import { frameworkLoginSuite } from './login-suite.js';

frameworkLoginSuite(
  'Fastify with @fastify/passport and @fastify/session',
  async (options) => {
    const app = await buildApp(options, 'a-fastify-session-secret-of-32-chars-at-least');
    return { url: await app.listen({ port: 0, host: '127.0.0.1' }), close: () => app.close() };
  },
  { failed: true, message: 'Signing in with Kudos did not complete.' },
);
