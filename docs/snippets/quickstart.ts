// server.ts: sign in with Kudos, keep the user in a session, show a profile page, log out.
// Against the local emulator: `npx kudos-emulator`, then run this with the environment it prints
// (see "Quick start" in the README). Against Kudos: the URLs and credentials the operator gave you.
import { randomBytes } from 'node:crypto';
import express, { type ErrorRequestHandler } from 'express';
import session from 'express-session';
import passport from 'passport';
import { DENIED_MESSAGE, KudosCookieStateStore, KudosError, KudosStrategy } from 'passport-kudos';

// The user your app keeps in the session (Passport's Express.User).
declare global {
  namespace Express {
    interface User {
      id: string;
      name: string;
    }
  }
}

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] || fallback; // an empty variable is an unset one
  if (value !== undefined) return value;
  console.error(`set ${name}`);
  process.exit(1);
};
const port = Number(env('PORT', '3000'));
// Production: your own secret, 32+ characters (required). Development: a random one at each start.
const sessionSecret =
  process.env.NODE_ENV === 'production'
    ? env('SESSION_SECRET')
    : env('SESSION_SECRET', randomBytes(32).toString('base64url'));

passport.use(
  new KudosStrategy(
    {
      clientID: env('KUDOS_CLIENT_ID', 'kudos-demo-client'),
      clientSecret: env('KUDOS_CLIENT_SECRET', 'kudos-demo-secret'),
      callbackURL: env('CALLBACK_URL', `http://localhost:${port}/auth/kudos/callback`), // whitelisted for the client
      authURL: env('KUDOS_AUTH_URL', 'http://127.0.0.1:4000'), // the sign-in page is {authURL}/in/oauth/
      baseURL: env('KUDOS_BASE_URL', 'http://127.0.0.1:4000/api'), // the emulator's {baseURL} ends in /api
      scope: ['profile'],
      store: new KudosCookieStateStore({ secret: sessionSecret }), // the state in a cookie: a start saves no session
    },
    (_accessToken, _refreshToken, profile, done) => done(null, { id: profile.id, name: profile.displayName }),
  ),
);
passport.serializeUser((user, done) => done(null, user));
passport.deserializeUser((user: Express.User, done) => done(null, user));

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

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

// A failed sign-in comes back as a word in the URL, not a message in a session: a visitor who declines
// (or follows a stale link) leaves nothing stored, and `GET /` only reads the session.
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
  passport.authenticate('kudos', (err: unknown, user: Express.User | false, info?: { message?: string }) => {
    if (err) return next(err);
    if (!user)
      return res.redirect(info?.message === DENIED_MESSAGE ? '/?failed=declined' : '/?failed=expired');
    req.logIn(user, (error) => (error ? next(error) : res.redirect('/profile')));
  })(req, res, next);
});
app.get('/profile', (req, res) => {
  if (!req.user) return res.redirect('/');
  res.send(
    `<h1>${escapeHtml(req.user.name)}</h1><p id="user-id">${escapeHtml(req.user.id)}</p>` +
      '<form method="post" action="/logout"><button>Log out</button></form>',
  );
});
app.post('/logout', (req, res, next) => {
  req.logout((err) => (err ? next(err) : res.redirect('/')));
});

// Errors of the sign-in: a readable page, never a stack trace; logged without a secret (a wrong
// client secret is INVALID_CLIENT_CRED). `code` is a safe word: escape what you put into HTML anyway.
const onError: ErrorRequestHandler = (err: unknown, _req, res, next) => {
  if (!(err instanceof KudosError)) return next(err);
  console.error(`Kudos sign-in failed: ${err.code} (${err.status}): ${err.message}`);
  res.status(err.status).send(`<p>Signing in with Kudos did not work (${escapeHtml(err.code)}).</p>`);
};
app.use(onError);

app.listen(port, () => console.log(`listening on http://localhost:${port}`));
