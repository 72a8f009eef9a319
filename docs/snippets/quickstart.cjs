// server.cjs: the quick start in CommonJS JavaScript.
const { randomBytes } = require('node:crypto');
const express = require('express');
const session = require('express-session');
const passport = require('passport');
const { DENIED_MESSAGE, KudosCookieStateStore, KudosError, KudosStrategy } = require('passport-kudos');

const port = Number(process.env.PORT ?? 3000);
// In production, your own secret of 32 characters or more; in development a new random one each start.
if (process.env.NODE_ENV === 'production' && !process.env.SESSION_SECRET) {
  console.error('set SESSION_SECRET');
  process.exit(1);
}
const sessionSecret = process.env.SESSION_SECRET || randomBytes(32).toString('base64url');

passport.use(
  new KudosStrategy(
    {
      clientID: process.env.KUDOS_CLIENT_ID ?? 'kudos-demo-client',
      clientSecret: process.env.KUDOS_CLIENT_SECRET ?? 'kudos-demo-secret',
      callbackURL: process.env.CALLBACK_URL ?? `http://localhost:${port}/auth/kudos/callback`,
      authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000',
      baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api', // the emulator's ends in /api
      scope: ['profile'],
      store: new KudosCookieStateStore({ secret: sessionSecret }), // the state in a cookie: a start saves no session
    },
    (_accessToken, _refreshToken, profile, done) => done(null, { id: profile.id, name: profile.displayName }),
  ),
);
passport.serializeUser((user, done) => done(null, user));
passport.deserializeUser((user, done) => done(null, user));

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const app = express();
app.use(
  session({
    secret: sessionSecret,
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax' },
  }),
);
app.use(passport.session());

// Why a sign-in failed comes back as a word in the URL, not a message in a session: a visitor who
// declines (or follows a stale link) leaves nothing stored, and `GET /` only reads the session.
const FAILED = new Map([
  ['declined', 'You declined to sign in with Kudos.'],
  ['expired', 'Please sign in again.'],
]);

app.get('/', (req, res) => {
  const failed = FAILED.get(String(req.query.failed));
  res.send(
    (failed ? `<p id="failure" role="alert">${escapeHtml(failed)}</p>` : '') +
      (req.user
        ? `<p>Signed in as ${escapeHtml(req.user.name)}. <a href="/profile">Profile</a></p>`
        : '<a href="/auth/kudos">Sign in with Kudos</a>'),
  );
});
app.get('/auth/kudos', passport.authenticate('kudos'));
app.get('/auth/kudos/callback', (req, res, next) => {
  passport.authenticate('kudos', (err, user, info) => {
    if (err) return next(err);
    if (!user)
      return res.redirect(info?.message === DENIED_MESSAGE ? '/?failed=declined' : '/?failed=expired');
    req.logIn(user, (error) => (error ? next(error) : res.redirect('/profile')));
  })(req, res, next);
});
app.get('/profile', (req, res) => {
  if (!req.user) return res.redirect('/');
  res.send(`<h1>${escapeHtml(req.user.name)}</h1><p id="user-id">${escapeHtml(req.user.id)}</p>`);
});
app.post('/logout', (req, res, next) => req.logout((err) => (err ? next(err) : res.redirect('/'))));
app.use((err, _req, res, next) => {
  if (!(err instanceof KudosError)) return next(err);
  // Logged for you (a wrong client secret is INVALID_CLIENT_CRED): messages never hold a secret.
  console.error(`Kudos sign-in failed: ${err.code} (${err.status}): ${err.message}`);
  res.status(err.status).send(`<p>Signing in with Kudos did not work (${escapeHtml(err.code)}).</p>`);
});

app.listen(port, () => console.log(`listening on http://localhost:${port}`));
