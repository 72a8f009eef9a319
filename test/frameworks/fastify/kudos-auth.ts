// Fastify: sign in with Kudos through @fastify/passport (docs/frameworks.md shows this file, tested as is).
import fastifyCookie from '@fastify/cookie';
import { Authenticator } from '@fastify/passport';
import fastifySession from '@fastify/session';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { KudosCookieStateStore, KudosError, KudosStrategy, type KudosStrategyOptions } from 'passport-kudos';

export async function buildApp(
  options: KudosStrategyOptions,
  sessionSecret: string,
): Promise<FastifyInstance> {
  const app = Fastify();
  const passport = new Authenticator();

  await app.register(fastifyCookie);
  await app.register(fastifySession, {
    secret: sessionSecret, // 32 characters or more
    cookie: { secure: 'auto', httpOnly: true, sameSite: 'lax' },
    saveUninitialized: false,
  });
  await app.register(passport.initialize());
  await app.register(passport.secureSession());

  // The sign-in's state in a cookie, not the session (a start stores nothing): the store sets it on
  // the reply, which Fastify keeps apart from the request, so a hook hands each request's reply over.
  const replies = new WeakMap<object, FastifyReply>();
  app.addHook('onRequest', async (request, reply) => {
    replies.set(request, reply);
  });
  const store = new KudosCookieStateStore({
    secret: sessionSecret,
    response: (request) => {
      const reply = replies.get(request);
      return (
        reply && { getHeader: (name) => reply.getHeader(name), setHeader: (name, v) => reply.header(name, v) }
      );
    },
  });
  passport.use(
    'kudos',
    new KudosStrategy({ ...options, store }, (_accessToken, _refreshToken, profile, done) =>
      done(null, { id: profile.id, displayName: profile.displayName }),
    ),
  );
  passport.registerUserSerializer(async (user: { id: string; displayName: string }) => JSON.stringify(user));
  passport.registerUserDeserializer(async (json: string) => JSON.parse(json));

  app.get('/auth/kudos', { preValidation: passport.authenticate('kudos') }, async () => undefined);
  app.get(
    '/auth/kudos/callback',
    {
      preValidation: passport.authenticate('kudos', {
        successRedirect: '/me',
        // No failureMessage: it would write the reason into a new session for every visitor who
        // declines (or follows a stale link); the failure route says what it can without one.
        failureRedirect: '/auth/failure',
      }),
    },
    async () => undefined,
  );
  app.get('/auth/failure', async () => ({
    failed: true,
    message: 'Signing in with Kudos did not complete.',
  }));
  app.get('/me', async (request) => request.user ?? null);

  // Provider and network problems answer their status and stable code.
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof KudosError)
      return reply.status(error.status).send({ code: error.code, message: error.message });
    return reply.send(error);
  });
  return app;
}
