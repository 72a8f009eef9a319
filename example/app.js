// The example app: Express 5 + express-session + passport 0.7 + KudosStrategy, used the way an
// application would use passport-kudos (imported by its package name).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import express from 'express';
import session from 'express-session';
import passport from 'passport';
import { createKudosClient, DENIED_MESSAGE, KudosError, KudosStrategy } from 'passport-kudos';
import { cosmosConfirmer, kudosWebhook } from 'passport-kudos/webhook';
import { ANONYMOUS_SESSION_MS } from './session-store.js';
import { errorPage, FAVICON_SVG, homePage, paymentsPage, profilePage, tipDonePage } from './views.js';

/** Scopes the example asks for. */
export const EXAMPLE_SCOPES = ['profile', 'email', 'read:kudos.info'];

/** What a tip costs: 1 KUDOS in the widget, in the chain's smallest unit (1 KUDOS = 10^9 nanokudos). */
export const TIP = { tokens: '1', units: 1_000_000_000n };

/** Most tip orders a session keeps open (each profile view starts one; the return page ends it). */
const OPEN_ORDERS = 5;

/**
 * Accepts a post-login return path only when it is a path on this site (no open redirect).
 * @param {unknown} value
 * @returns {value is string}
 */
export function isLocalPath(value) {
  return typeof value === 'string' && value.length < 512 && /^\/(?![/\\])[^\s\\]*$/.test(value);
}

/** @param {bigint} value @param {string} denom */
function formatAmount(value, denom) {
  if (denom !== 'nanokudos') return { amount: value.toString(), denom };
  const whole = value / 1_000_000_000n;
  const fraction = (value % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return { amount: fraction ? `${whole}.${fraction}` : whole.toString(), denom: 'KUDOS' };
}

/** Errors of an unreachable store (Redis down or slow): answered 503, "try again". */
function isStorageOutage(err) {
  if (err?.code === 'redis_unavailable' || err?.code === 'lock_timeout') return true;
  // node-redis error classes do not set `name`: look at the constructor too.
  const outage =
    /^(ClientClosedError|ClientOfflineError|ConnectionTimeoutError|SocketClosedUnexpectedlyError|ReconnectStrategyError)$/;
  return outage.test(String(err?.name)) || outage.test(String(err?.constructor?.name));
}

function csrfToken(req) {
  if (!req.session.csrf) req.session.csrf = randomBytes(18).toString('base64url');
  return req.session.csrf;
}

function checkCsrf(req) {
  const given = Buffer.from(String(req.body?.csrf ?? ''));
  const expected = Buffer.from(String(req.session.csrf ?? ''));
  return expected.length > 0 && given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * @param {{
 *   config: import('./config.js').ExampleConfig,
 *   authURL: string,
 *   baseURL: string,
 *   stores: import('./stores.js').ExampleStores,
 *   receiverWallet: string,
 *   log?: (line: string) => void,
 * }} options
 */
export function createExampleApp({
  config,
  authURL,
  baseURL,
  stores,
  receiverWallet,
  log = () => undefined,
}) {
  const authenticator = new passport.Passport();
  const strategy = new KudosStrategy(
    {
      clientID: config.clientID,
      clientSecret: config.clientSecret,
      callbackURL: config.callbackURL,
      authURL,
      baseURL,
      scope: EXAMPLE_SCOPES,
      proxy: config.trustProxy,
    },
    (_accessToken, _refreshToken, params, profile, done) => {
      // Store the token set at every login (the avatar URL expires, so it is refreshed here too).
      Promise.resolve(stores.tokens.set(profile.id, params.tokenSet)).then(
        () =>
          done(null, {
            id: profile.id,
            displayName: profile.displayName,
            avatar: profile.photos?.[0]?.value,
          }),
        done,
      );
    },
  );
  authenticator.use(strategy);
  authenticator.serializeUser((user, done) => done(null, user));
  authenticator.deserializeUser((user, done) => done(null, user));
  const kudos = createKudosClient({ strategy, tokens: stores.tokens, baseURL, lock: stores.lock });

  const app = express();
  if (config.trustProxy) app.set('trust proxy', 1);
  app.disable('x-powered-by');

  // Kudos payment notifications: mounted before the session and the form parser, which it does not need.
  const hook = kudosWebhook({
    secret: config.webhookSecret,
    // Paid means "paid to this shop's own wallet", as the chain shows it: never the notification's `to`.
    confirm: cosmosConfirmer({
      ...(config.chainURL ? { restURL: config.chainURL } : { baseURL }),
      receiver: receiverWallet,
    }),
    store: stores.dedupe,
    // At least once: a notification whose handler failed runs again (redelivery, redrive), so the
    // payment log is idempotent by transaction hash.
    async onNotification(n) {
      // Credited only when the shop received at least what a tip costs (n.tx.amount is the claim).
      const paid = n.paid && n.received >= TIP.units;
      const received = formatAmount(n.received, n.tx.amount.denom);
      await stores.payments.add({
        txHash: n.tx.txHash,
        from: n.tx.fromId ?? n.tx.from ?? 'unknown',
        to: n.tx.outputs.map((o) => `${o.userId ?? o.address}${o.agent ? ' (agent fee)' : ''}`).join(', '),
        ...formatAmount(n.tx.amount.value, n.tx.amount.denom),
        received: `${received.amount} ${received.denom}`,
        status: n.tx.status,
        paid,
        receivedAt: new Date().toISOString(),
      });
      log(`payment ${n.tx.txHash.slice(0, 8)}… ${n.tx.status}${paid ? ' (paid)' : ''} (${n.source})`);
    },
    onError: (error) => log(`webhook refused: ${error.code}`),
  });
  app.post('/webhooks/kudos', hook);

  app.use(
    session({
      name: 'kudos-example.sid',
      secret: config.sessionSecret,
      store: stores.session,
      resave: false,
      saveUninitialized: false,
      cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: 24 * 3600 * 1000 },
    }),
  );
  app.use(express.urlencoded({ extended: false, limit: '8kb' }));
  app.use(authenticator.session());

  const view = (req) => ({ user: req.user, csrf: req.user ? csrfToken(req) : undefined });

  app.get('/', (req, res) => {
    const message = req.session.message;
    delete req.session.message;
    res.send(homePage({ ...view(req), message }));
  });

  app.get('/auth/kudos', (req, res, next) => {
    if (isLocalPath(req.query.returnTo)) req.session.returnTo = req.query.returnTo;
    // A session that only holds the login state lives minutes, not a day (any store, Redis too);
    // passport regenerates the session at login, which gives the signed-in one the normal lifetime.
    if (!req.user) req.session.cookie.maxAge = ANONYMOUS_SESSION_MS;
    // Save first: express-session reports a failed save only after the redirect was sent, and the
    // user would come back with a state that was never stored. Failing here gives a clear 503.
    req.session.save((err) => (err ? next(err) : authenticator.authenticate('kudos')(req, res, next)));
  });

  app.get('/auth/kudos/callback', (req, res, next) => {
    authenticator.authenticate('kudos', (err, user, info, status) => {
      if (err) return next(err);
      if (!user) {
        if (info?.message === DENIED_MESSAGE) {
          req.session.message = 'You declined to sign in with Kudos. You can try again any time.';
          return res.redirect('/');
        }
        const code = typeof status === 'number' ? status : 401;
        return res
          .status(code)
          .send(
            errorPage({ status: code, title: 'Sign-in failed', message: info?.message ?? 'Sign-in failed.' }),
          );
      }
      const returnTo = req.session.returnTo; // read before login: passport regenerates the session
      req.logIn(user, (loginError) => {
        if (loginError) return next(loginError);
        res.redirect(isLocalPath(returnTo) ? returnTo : '/profile');
      });
    })(req, res, next);
  });

  function requireUser(req, res, next) {
    if (req.user) return next();
    req.session.message = 'Log in to see that page.';
    res.redirect('/');
  }

  async function renderProfile(req, res, extra = {}) {
    const tokens = await stores.tokens.get(req.user.id);
    // A tip order: a random, single-use ID kept in this user's (server-side) session, sent as the
    // widget's `state`; the return page reconciles a hash only for an order it finds here.
    const order = randomBytes(16).toString('base64url');
    req.session.tipOrders = [...(req.session.tipOrders ?? []), order].slice(-OPEN_ORDERS);
    const tipURL = new URL('/in/widget/pay', authURL);
    const tip = {
      to: config.tipReceiver,
      amount: TIP.tokens,
      via: config.agentID,
      remarks: 'Tip from the Kudos example shop',
      state: order,
      redirect_uri: `${req.protocol}://${req.get('host')}/tip/done`,
      // Back only once the payment is confirmed, so the return page can record it as paid even when
      // its notification never arrives.
      blocking: '1',
    };
    tipURL.search = new URLSearchParams(tip).toString();
    // The same tip in a popup (opener=1): the widget posts its result to this page's origin (the
    // redirect_uri only names it) and closes; a second order, so each flow has its own.
    const popupOrder = randomBytes(16).toString('base64url');
    req.session.tipOrders = [...req.session.tipOrders, popupOrder].slice(-OPEN_ORDERS);
    const popupURL = new URL('/in/widget/pay', authURL);
    popupURL.search = new URLSearchParams({ ...tip, state: popupOrder, opener: '1' }).toString();
    res.send(
      profilePage({
        user: req.user,
        expiresAt: tokens?.expiresAt,
        scope: tokens?.scope,
        csrf: csrfToken(req),
        tipURL: tipURL.toString(),
        popupURL: popupURL.toString(),
        kudosOrigin: new URL(authURL).origin,
        ...extra,
      }),
    );
  }

  app.get('/profile', requireUser, (req, res, next) => {
    renderProfile(req, res).catch(next);
  });

  app.post('/profile/api', requireUser, async (req, res, next) => {
    if (!checkCsrf(req))
      return res
        .status(403)
        .send(errorPage({ status: 403, title: 'Form expired', message: 'Reload the page and try again.' }));
    try {
      const [me, info] = await Promise.all([
        kudos.json(req.user.id, '/v1/me'),
        kudos.json(req.user.id, '/v1/kudos/info'),
      ]);
      await renderProfile(req, res, { apiResult: { me, info } });
    } catch (error) {
      if (error instanceof KudosError && error.code === 'reauth_required') {
        req.session.returnTo = '/profile';
        return res.redirect('/auth/kudos?returnTo=%2Fprofile');
      }
      if (error instanceof KudosError)
        return renderProfile(req, res, { apiError: `Kudos answered ${error.code}` }).catch(next);
      next(error);
    }
  });

  /**
   * Reconciles the hash a widget gave back, only for one of this signed-in user's open orders (the
   * widget's `state`), and uses the order up: anyone can type a return URL with any hash. Answers
   * why nothing was reconciled, or undefined.
   */
  async function reconcileOrder(req, txHash, state) {
    const orders = req.session.tipOrders ?? [];
    const mine = Boolean(req.user) && typeof state === 'string' && state !== '' && orders.includes(state);
    if (!mine || typeof txHash !== 'string' || !/^[0-9A-Fa-f]{64}$/.test(txHash))
      return 'This payment confirmation does not belong to your session.';
    req.session.tipOrders = orders.filter((o) => o !== state);
    // Look the transaction up, so the tip is recorded even when its notification never arrives (the
    // same keys as the webhook: it is recorded once either way).
    await hook
      .reconcile({ baseURL, txHash })
      .catch((failure) => log(`reconcile of ${txHash.slice(0, 8)}… failed: ${failure?.code ?? 'error'}`));
    return undefined;
  }

  app.get('/tip/done', async (req, res) => {
    const { tx_hash: txHash, error, state } = req.query;
    const message =
      typeof error === 'string'
        ? `The payment was not completed (${error}).`
        : await reconcileOrder(req, txHash, state);
    res.send(tipDonePage({ ...view(req), txHash, error: message }));
  });

  // The popup flow's return: the page's script posts the hash the widget's message carried.
  app.post('/tip/popup', requireUser, async (req, res, next) => {
    if (!checkCsrf(req))
      return res.status(403).json({ status: 'refused', message: 'Reload the page and try again.' });
    try {
      const { tx_hash: txHash, state } = req.body ?? {};
      const refused = await reconcileOrder(req, txHash, state);
      if (refused) return res.status(400).json({ status: 'refused', message: refused });
      const hash = String(txHash).toUpperCase();
      const row = (await stores.payments.list()).find((p) => p.txHash === hash);
      res.json(
        row?.paid
          ? { status: 'paid', message: `Thank you! Your tip of ${row.received} was received.` }
          : {
              status: 'sent',
              message: 'Thank you! Your payment was sent; it appears under Payments once confirmed.',
            },
      );
    } catch (error) {
      next(error);
    }
  });

  app.get('/favicon.ico', (_req, res) => {
    res.type('image/svg+xml').set('cache-control', 'public, max-age=86400').send(FAVICON_SVG);
  });

  app.get('/tip-popup.js', (_req, res) => {
    res.type('text/javascript').sendFile(fileURLToPath(new URL('./public/tip-popup.js', import.meta.url)));
  });

  // Who paid whom is the shop's business: signed-in users only.
  app.get('/payments', requireUser, async (req, res, next) => {
    try {
      const unprocessed = await hook.unprocessed();
      const retried = req.session.retried;
      delete req.session.retried;
      res.send(paymentsPage({ ...view(req), payments: await stores.payments.list(), unprocessed, retried }));
    } catch (error) {
      next(error);
    }
  });

  // Runs the notifications the handler could not process again (an operator runs hook.redrive() on
  // a schedule as well; see the README's payments section).
  app.post('/payments/retry', requireUser, async (req, res, next) => {
    if (!checkCsrf(req))
      return res
        .status(403)
        .send(errorPage({ status: 403, title: 'Form expired', message: 'Reload the page and try again.' }));
    try {
      req.session.retried = await hook.redrive();
      res.redirect(303, '/payments');
    } catch (error) {
      next(error);
    }
  });

  app.post('/logout', (req, res, next) => {
    if (!checkCsrf(req))
      return res
        .status(403)
        .send(errorPage({ status: 403, title: 'Form expired', message: 'Reload the page and try again.' }));
    req.logout((err) => {
      if (err) return next(err);
      res.redirect('/');
    });
  });

  app.use((req, res) => {
    res
      .status(404)
      .send(errorPage({ ...view(req), status: 404, title: 'Not found', message: 'There is no such page.' }));
  });

  // Any other failure: a readable page, never a stack trace. Logs name the error, not its details.
  app.use((err, req, res, _next) => {
    const outage = isStorageOutage(err);
    const status = outage
      ? 503
      : Number.isInteger(err?.status) && err.status >= 400 && err.status < 600
        ? err.status
        : 500;
    log(
      `error on ${req.method} ${req.path}: ${err?.constructor?.name ?? err?.name ?? 'Error'} ${err?.code ?? ''}`.trim(),
    );
    const message = outage
      ? 'Our session storage is unavailable right now. Please try again in a moment.'
      : err instanceof KudosError
        ? `Signing in with Kudos did not work (${err.code}). Please try again.`
        : 'Something went wrong on our side. Please try again.';
    if (outage) res.set('retry-after', '5');
    res
      .status(status)
      .send(
        errorPage({ status, title: outage ? 'Temporarily unavailable' : 'Something went wrong', message }),
      );
  });

  return { app, strategy, kudos };
}
