// NestJS: main.ts, the bootstrap with sessions (the code of docs/frameworks.md, tested as is).
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import session from 'express-session';
import passport from 'passport';
import { KudosCookieStateStore, type KudosStrategyOptions } from 'passport-kudos';
import { kudosAuthModule } from './kudos-auth.js';

/** Creates the app with the Kudos module, sessions and Passport, listening on `port`. */
export async function bootstrap(
  options: KudosStrategyOptions,
  sessionSecret: string,
  port: number,
): Promise<INestApplication> {
  // The sign-in's state in a cookie, not the session: a start stores nothing (Nest on Express: req.res).
  const store = new KudosCookieStateStore({ secret: sessionSecret });
  const app = await NestFactory.create(kudosAuthModule({ ...options, store }), { logger: false });
  app.use(session({ secret: sessionSecret, resave: false, saveUninitialized: false }));
  app.use(passport.initialize());
  app.use(passport.session());
  await app.listen(port, '127.0.0.1');
  return app;
}

// Started as a program (`node main.js`): the settings come from the environment.
if (process.argv[1]?.endsWith('main.js')) {
  const sessionSecret = process.env.SESSION_SECRET;
  if (!sessionSecret) throw new Error('set SESSION_SECRET');
  await bootstrap(
    {
      clientID: process.env.KUDOS_CLIENT_ID ?? 'kudos-demo-client',
      clientSecret: process.env.KUDOS_CLIENT_SECRET ?? 'kudos-demo-secret',
      callbackURL: '/auth/kudos/callback',
      authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000',
      baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api',
    },
    sessionSecret,
    Number(process.env.PORT ?? 3000),
  );
}
