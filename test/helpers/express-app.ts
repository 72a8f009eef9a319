import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import session from 'express-session';
import passport from 'passport';
import {
  KudosStrategy,
  type KudosStrategyOptions,
  type KudosStrategyOptionsBase,
  type KudosVerifyFunction,
  type KudosVerifyFunctionWithRequest,
  type KudosVerifyWithParams,
} from '../../src/index.js';
import { listenLocal } from './listen.js';

/** The two Express majors installed side by side. */
export const EXPRESS_FLAVORS = ['express4', 'express5'] as const;
export type ExpressFlavor = (typeof EXPRESS_FLAVORS)[number];

/** What a test app records of each verify call. */
export interface VerifyCall {
  args: unknown[];
}

/** Options of {@link startApp}. */
export interface AppOptions {
  strategy: Partial<KudosStrategyOptionsBase> & { passReqToCallback?: boolean };
  /** Custom verify; by default one that logs in `{ id, displayName }` with arity 5. */
  verify?: KudosVerifyFunction | KudosVerifyFunctionWithRequest;
  /** express-session's store; default its MemoryStore. */
  sessionStore?: session.Store;
}

/** A real Express app with express-session and passport, listening on 127.0.0.1:0. */
export interface TestApp {
  url: string;
  calls: VerifyCall[];
  close: () => Promise<void>;
}

async function loadExpress(flavor: ExpressFlavor): Promise<typeof import('express')> {
  const mod = flavor === 'express4' ? await import('express4') : await import('express5');
  return mod.default;
}

/**
 * Starts an app with these routes:
 * - GET /login: start; GET and POST /callback: callback with failureRedirect `/failed` and failureMessage;
 * - GET /callback-raw: callback without failureRedirect (Passport answers the failure status itself);
 * - GET /me: the session user; GET /failed: the failure messages; errors as JSON with their status.
 */
export async function startApp(flavor: ExpressFlavor, options: AppOptions): Promise<TestApp> {
  const express = await loadExpress(flavor);
  const app: Express = express();
  const calls: VerifyCall[] = [];
  const recordingVerify: KudosVerifyWithParams = (accessToken, refreshToken, params, profile, done) => {
    calls.push({ args: [accessToken, refreshToken, params, profile] });
    done(null, { id: profile.id, displayName: profile.displayName });
  };
  const verify = options.verify ?? recordingVerify;
  const authenticator = new passport.Passport();
  authenticator.use(
    new KudosStrategy(
      {
        clientID: 'demo-client',
        clientSecret: 'demo-secret',
        callbackURL: '/callback',
        ...options.strategy,
      } as KudosStrategyOptions,
      verify as KudosVerifyFunction,
    ),
  );
  authenticator.serializeUser((user, done) => done(null, JSON.stringify(user)));
  authenticator.deserializeUser((json: string, done) => done(null, JSON.parse(json)));

  app.use(
    session({
      secret: 'test-session-secret',
      resave: false,
      saveUninitialized: false,
      ...(options.sessionStore ? { store: options.sessionStore } : {}),
    }),
  );
  app.use(express.urlencoded({ extended: false }));
  app.use(authenticator.initialize());
  app.use(authenticator.session());
  const callback: RequestHandler[] = [
    authenticator.authenticate('kudos', { failureRedirect: '/failed', failureMessage: true }),
    (_req, res) => res.redirect('/me'),
  ];
  app.get('/login', authenticator.authenticate('kudos'));
  app.get('/callback', ...callback);
  app.post('/callback', ...callback);
  app.get('/callback-raw', authenticator.authenticate('kudos'), (_req, res) => {
    res.redirect('/me');
  });
  app.get('/me', (req, res) => {
    if (req.user) res.json(req.user);
    else res.status(401).json({ error: 'not logged in' });
  });
  app.get('/failed', (req, res) => {
    res.status(401).json({ messages: (req.session as { messages?: string[] }).messages ?? [] });
  });
  const onError: ErrorRequestHandler = (err: Record<string, unknown>, _req, res, _next) => {
    const status = typeof err.status === 'number' ? err.status : 500;
    res.status(status).json({
      name: err.name,
      code: err.code,
      status: err.status,
      httpStatus: err.httpStatus,
      message: err.message,
    });
  };
  app.use(onError);

  const listening = await listenLocal(app);
  return { url: listening.url, calls, close: listening.close };
}
