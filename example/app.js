// The example app: Express 5 + express-session + passport 0.7 + KudosStrategy, used the way an
// application would use passport-kudos (imported by its package name).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import express from 'express';
import session from 'express-session';
import { kudosPayments } from 'kudos-payments';
import passport from 'passport';
import {
  createKudosClient,
  DENIED_MESSAGE,
  KudosCookieStateStore,
  KudosError,
  KudosStrategy,
} from 'passport-kudos';
import { createMetrics } from './metrics.js';
import { errorPage, FAVICON_SVG, homePage, paymentsPage, profilePage, tipDonePage } from './views.js';

/** Scopes the example asks for. */
export const EXAMPLE_SCOPES = ['profile', 'email', 'read:kudos.info'];

/** What a tip costs: 1 KUDOS in the widget, in the chain's smallest unit (1 KUDOS = 10^9 nanokudos). */
export const TIP = { tokens: '1', units: 1_000_000_000n };

/** How long a tip order can be paid (each profile view makes two: the link and the popup). */
const TIP_ORDER_TTL_MS = 3600 * 1000;

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
  if (err?.code === 'store_unavailable' || err?.code === 'lock_timeout') return true;
  // node-redis error classes do not set `name`: look at the constructor too.
  const outage =
    /^(ClientClosedError|ClientOfflineError|ConnectionTimeoutError|SocketClosedUnexpectedlyError|ReconnectStrategyError)$/;
  return outage.test(String(err?.name)) || outage.test(String(err?.constructor?.name));
}

/** What the home page tells a visitor, by the word in its URL (`/?notice=declined`). */
const NOTICES = new Map([
  ['declined', 'You declined to sign in with Kudos. You can try again any time.'],
  ['login', 'Sign in to see that page.'],
]);

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
 *   chainURL?: string | undefined,
 *   stores: import('./stores.js').ExampleStores,
 *   shopWallet: string,
 *   log?: (line: string) => void,
 * }} options
 */
export function createExampleApp({
  config,
  authURL,
  baseURL,
  chainURL,
  stores,
  shopWallet,
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
      // The sign-in's state in an encrypted cookie, not the session: an anonymous visitor who starts a
      // sign-in leaves nothing in the session store (docs/reference.md#a-sign-in-start-that-stores-nothing).
      store: new KudosCookieStateStore({ secret: config.sessionSecret }),
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
  // No page of the shop is framed by another origin (clickjacking a signed-in user's profile or
  // payments): CSP for today's browsers, X-Frame-Options for older ones.
  app.use((_req, res, next) => {
    res.set('content-security-policy', "frame-ancestors 'self'");
    res.set('x-frame-options', 'SAMEORIGIN');
    next();
  });

  /** The shop's own Kudos accounts: only they see every payment and what waits to be processed. */
  const shopAccounts = new Set([config.shopUser, config.agentID]);
  /** Whether the signed-in user is the shop: only the shop sees every payment and may run Retry. */
  const isShop = (req) => Boolean(req.user) && shopAccounts.has(req.user.id);

  /** @param {bigint} value */
  const kudosAmount = (value) => {
    const { amount, denom } = formatAmount(value, 'nanokudos');
    return `${amount} ${denom}`;
  };

  // Tips are orders of kudosPayments(): each tip link names its order (the widget's state and memo);
  // a payment counts only once the chain shows it reaching the shop's own wallet, in full, from the
  // user the order was made for, whichever path (notification, return page, redrive) brings it.
  const payments = kudosPayments({
    secret: config.webhookSecret,
    authURL,
    baseURL,
    ...(chainURL ? { restURL: chainURL } : {}),
    wallet: shopWallet,
    shopUser: config.shopUser,
    agent: config.agentID,
    store: stores.dedupe,
    orders: stores.orders,
    orderTtlMs: TIP_ORDER_TTL_MS,
    // At least once (again only if this throws): the payment log is idempotent by transaction.
    async onPaid({ order, txHash, received, payer, source }) {
      await stores.payments.add({
        txHash,
        from: payer ?? 'unknown',
        order: order.reference,
        received: kudosAmount(received),
        outcome: 'paid',
        paid: true,
        receivedAt: new Date().toISOString(),
      });
      log(`tip ${txHash.slice(0, 8)}… paid by ${payer ?? 'unknown'} (${source})`);
    },
    // Money that reached the shop and pays no tip (underpaid, paid twice, expired...): listed for a refund.
    async onException({ reason, txHash, reference, received, payer }) {
      await stores.payments.add({
        txHash,
        from: payer ?? 'unknown',
        order: reference,
        received: kudosAmount(received),
        outcome: reason,
        paid: false,
        receivedAt: new Date().toISOString(),
      });
      log(`payment ${txHash.slice(0, 8)}… not credited: ${reason}`);
    },
    onError: (error) => log(`webhook refused: ${error.code}`),
  });
  /**
   * The tips that no notification and no return page brought: a payer whose browser failed after
   * paying, a notification the service gave up on while the shop was down
   * (docs/payments.md#the-way-back). The chain shows every transfer to the shop's wallet and
   * its memo names the tip, so this finds and credits them (each once), with no token and no history.
   */
  function reconcileChain() {
    return payments.reconcileChain();
  }

  /**
   * /healthz and /metrics read every exception: they answer the loopback (the same machine, a
   * sidecar), the addresses of SCRAPER_ADDRESSES, or a request with SCRAPER_TOKEN as its bearer
   * token; anyone else gets 404, as if there were no such page.
   */
  function operatorsOnly(req, res, next) {
    const address = (config.trustProxy ? req.ip : req.socket.remoteAddress) ?? '';
    const bare = address.replace(/^::ffff:/, '');
    const loopback = bare === '::1' || bare.startsWith('127.');
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    const tokenOk =
      config.scraperToken !== undefined &&
      token !== undefined &&
      Buffer.byteLength(token) === Buffer.byteLength(config.scraperToken) &&
      timingSafeEqual(Buffer.from(token), Buffer.from(config.scraperToken));
    if (loopback || config.scrapers.includes(bare) || tokenOk) return next();
    res.status(404).type('text/plain').send('Not Found');
  }

  // Kudos payment notifications: mounted before the session and the form parser, which it does not need.
  app.post('/webhooks/kudos', payments.webhook);
  // The operator's health answer (docs/payments.md#health): 503 when the store does not answer or a
  // payment has waited unprocessed (or an exception unacknowledged) for 10 minutes.
  app.get('/healthz', operatorsOnly, async (_req, res) => {
    const status = await payments.status();
    const healthy =
      status.storeOk &&
      status.lookupOk &&
      status.chainScanOk &&
      (status.oldestUnprocessedMs ?? 0) < 10 * 60_000;
    res.status(healthy ? 200 : 503).json(status);
  });
  // Prometheus metrics (docs/observability.md#metrics): sign-ins, payments, durations, what waits.
  // They carry no secret; behind a proxy, expose them to the scraper only.
  const metrics = createMetrics({ payments });
  app.get('/metrics', operatorsOnly, metrics.handler);

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

  // What a visitor is told comes back as a word in the URL (NOTICES), never a message written into a
  // session: an anonymous visitor saves nothing. A signed-in user's one-time message rides in theirs.
  app.get('/', (req, res) => {
    const message = req.session.message ?? NOTICES.get(String(req.query.notice));
    if (req.session.message !== undefined) delete req.session.message;
    // On the embedded emulator: its sign-out, which sends the browser back here (to sign in as another
    // user). The service documents no sign-out of its own: not the example's to name there.
    const kudosLogoutURL =
      config.authURL === undefined
        ? `${authURL}/in/logout?${new URLSearchParams({ client_id: config.clientID, post_logout_redirect_uri: `${req.protocol}://${req.get('host')}/` })}`
        : undefined;
    res.send(homePage({ ...view(req), message, kudosLogoutURL }));
  });

  // The start stores nothing: where to go afterwards rides in the state cookie with the state.
  app.get('/auth/kudos', (req, res, next) => {
    const returnTo = isLocalPath(req.query.returnTo) ? req.query.returnTo : undefined;
    authenticator.authenticate('kudos', returnTo ? { state: { returnTo } } : {})(req, res, next);
  });

  app.get('/auth/kudos/callback', (req, res, next) => {
    authenticator.authenticate('kudos', (err, user, info, status) => {
      if (err) return next(err);
      if (!user) {
        if (info?.message === DENIED_MESSAGE) return res.redirect('/?notice=declined');
        const code = typeof status === 'number' ? status : 401;
        return res
          .status(code)
          .send(
            errorPage({ status: code, title: 'Sign-in failed', message: info?.message ?? 'Sign-in failed.' }),
          );
      }
      const returnTo = info?.state?.returnTo; // what the start put in the state cookie
      req.logIn(user, (loginError) => {
        if (loginError) return next(loginError);
        res.redirect(isLocalPath(returnTo) ? returnTo : '/profile');
      });
    })(req, res, next);
  });

  function requireUser(req, res, next) {
    if (req.user) return next();
    res.redirect('/?notice=login');
  }

  async function renderProfile(req, res, extra = {}) {
    const tokens = await stores.tokens.get(req.user.id);
    // The shop's own account would pay itself (the service refuses that): no tip links for it. A
    // tip's order is made when the payer asks to pay (/tip), not for each view of this page.
    const tips = isShop(req) ? {} : { tipURL: '/tip', popupURL: '/tip?popup=1' };
    res.send(
      profilePage({
        user: req.user,
        expiresAt: tokens?.expiresAt,
        scope: tokens?.scope,
        csrf: csrfToken(req),
        ...tips,
        kudosOrigin: new URL(authURL).origin,
        ...extra,
      }),
    );
  }

  app.get('/profile', requireUser, (req, res, next) => {
    renderProfile(req, res).catch(next);
  });

  /**
   * The widget link of the signed-in user's tip: paid through a redirect back to /tip/done
   * (blocking, so that page can say "paid" before the notification), or with `popup=1` in a popup
   * that posts its result to the profile page's origin. The order is made now, when the payer asks
   * to pay, and one still open is used again: reloading costs no order.
   */
  app.get('/tip', requireUser, async (req, res, next) => {
    if (isShop(req)) return res.redirect('/profile');
    try {
      const kind = req.query.popup === '1' ? 'popup' : 'link';
      // The user's open tip, whichever session made it: signing in again makes no new order.
      const tipKey = `${req.user.id}:${kind}`;
      const kept = await stores.openTips.get(tipKey);
      const open = kept ? await payments.order(kept.reference) : undefined;
      if (open?.status === 'open' && open.expiresAt > Date.now() + 60_000) return res.redirect(303, kept.url);
      const origin = `${req.protocol}://${req.get('host')}`;
      const tip = { amount: TIP.tokens, user: req.user.id, memo: 'Tip from the Kudos example shop' };
      const { order, url } = await payments.createOrder(
        kind === 'popup'
          ? { ...tip, redirectURI: `${origin}/`, popup: true }
          : { ...tip, redirectURI: `${origin}/tip/done` },
      );
      await stores.openTips.set(tipKey, { reference: order.reference, url }, order.expiresAt - Date.now());
      res.redirect(303, url);
    } catch (error) {
      next(error);
    }
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
        return res.redirect('/auth/kudos?returnTo=%2Fprofile');
      }
      if (error instanceof KudosError)
        return renderProfile(req, res, { apiError: `Kudos answered ${error.code}` }).catch(next);
      next(error);
    }
  });

  /** What the return page says of a tip: kudosPayments() answers for the order the page names. */
  const TIP_ANSWERS = {
    paid: { status: 'paid', message: `Thank you! Your tip of ${TIP.tokens} KUDOS was received.` },
    pending: {
      status: 'sent',
      message: 'Thank you! Your payment was sent; it appears under Your tips once confirmed.',
    },
    not_this_order: { status: 'refused', message: 'This payment is not the one for this tip.' },
    unknown_order: {
      status: 'refused',
      message: 'This payment confirmation does not belong to your session.',
    },
  };

  /**
   * The answer for a hash the widget gave back and the tip order it came back with, for the
   * signed-in user's own orders only: anyone can type a return URL with any hash, and a hash that
   * pays another order is credited to that one, never to this.
   */
  async function tipAnswer(req, txHash, state) {
    if (!req.user || typeof state !== 'string' || typeof txHash !== 'string')
      return TIP_ANSWERS.unknown_order;
    const { status } = await payments.check({ reference: state, txHash, user: req.user.id });
    return TIP_ANSWERS[status];
  }

  app.get('/tip/done', async (req, res, next) => {
    try {
      const { tx_hash: txHash, error, state } = req.query;
      const answer =
        typeof error === 'string'
          ? { status: 'refused', message: `The payment was not completed (${error}).` }
          : await tipAnswer(req, txHash, state);
      res.send(tipDonePage({ ...view(req), txHash: typeof txHash === 'string' ? txHash : '', answer }));
    } catch (failure) {
      next(failure);
    }
  });

  // The popup flow's return: the page's script posts the hash the widget's message carried.
  app.post('/tip/popup', requireUser, async (req, res, next) => {
    if (!checkCsrf(req))
      return res.status(403).json({ status: 'refused', message: 'Reload the page and try again.' });
    try {
      const { tx_hash: txHash, state } = req.body ?? {};
      const answer = await tipAnswer(req, txHash, state);
      res.status(answer.status === 'refused' ? 400 : 200).json(answer);
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

  // Who paid whom is the shop's business: a user sees their own payments; the shop's own account
  // sees every payment and what waits to be processed.
  app.get('/payments', requireUser, async (req, res, next) => {
    try {
      const shop = isShop(req);
      const all = await stores.payments.list();
      const mine = shop ? all : all.filter((p) => p.from === req.user.id);
      // What waits for the shop: notifications not processed and exceptions not acknowledged, oldest first.
      const unprocessed = shop
        ? [
            ...(await payments.unprocessed()).map((n) => ({ kind: 'notification', ...n, at: n.receivedAt })),
            ...(await payments.exceptions()).map((e) => ({ kind: 'exception', ...e, at: e.decidedAt })),
          ].sort((a, b) => a.at - b.at)
        : undefined;
      const { retried, reconciled } = req.session;
      delete req.session.retried;
      delete req.session.reconciled;
      res.send(paymentsPage({ ...view(req), payments: mine, unprocessed, retried, reconciled }));
    } catch (error) {
      next(error);
    }
  });

  /**
   * A form only the shop may post (CSRF-checked): `act` runs, its result is kept in the session for
   * the payments page, and the shop goes back there. `what` names the action in the refusal.
   */
  const shopAction = (what, act) => async (req, res, next) => {
    if (!checkCsrf(req))
      return res
        .status(403)
        .send(errorPage({ status: 403, title: 'Form expired', message: 'Reload the page and try again.' }));
    if (!isShop(req))
      return res
        .status(403)
        .send(errorPage({ status: 403, title: 'Not allowed', message: `Only the shop can ${what}.` }));
    try {
      await act(req);
      res.redirect(303, '/payments');
    } catch (error) {
      next(error);
    }
  };

  // Runs the notifications the handler could not process again (an operator runs
  // payments.redrive() on a schedule as well; see the README's payments section). The shop only.
  app.post(
    '/payments/retry',
    requireUser,
    shopAction('retry payments', async (req) => {
      req.session.retried = await payments.redrive();
    }),
  );

  // Marks an exception seen (refunded, or looked at): no longer listed. The shop only.
  app.post(
    '/payments/acknowledge',
    requireUser,
    shopAction('acknowledge a payment', async (req) => {
      await payments.acknowledge(String(req.body.txHash ?? ''));
    }),
  );

  // Finds the tips that no notification and no return page brought on the chain, as the schedule
  // does every minute. The shop only.
  app.post(
    '/payments/reconcile',
    requireUser,
    shopAction('read the chain', async (req) => {
      const result = await reconcileChain();
      const { seen, processed, duplicates, failed, incomplete, busy } = result;
      req.session.reconciled = { seen, processed, duplicates, failed, incomplete, busy: busy === true };
    }),
  );

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

  return { app, strategy, kudos, metrics, reconcileChain };
}
