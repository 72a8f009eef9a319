// Adding Kudos to an app that already signs in with other providers (Google, Facebook...): one user
// table, and a federated_credentials table keyed by (provider, subject), as Passport's own example
// app keeps them. Here both are Maps; in your app, your database.
import { randomBytes } from 'node:crypto';
import express from 'express';
import session from 'express-session';
import passport from 'passport';
import { KudosCookieStateStore, KudosStrategy } from 'passport-kudos';

declare global {
  namespace Express {
    interface User {
      id: string;
      name: string;
    }
    interface Request {
      /** What passport.authorize() found: the account to link, beside the signed-in req.user. */
      account?: User;
    }
  }
}

const users = new Map<string, Express.User>([
  ['1', { id: '1', name: 'Ada (signed up with another provider)' }],
]);
/** federated_credentials: `${provider}:${subject}` to the user it signs in. */
const credentials = new Map<string, string>();

// Your own secret in production (32 characters or more); a random one at each start in development.
const sessionSecret = process.env.SESSION_SECRET ?? randomBytes(32).toString('base64url');
const kudos = {
  // The sign-in's state in a cookie: starting a sign-in saves no session.
  store: new KudosCookieStateStore({ secret: sessionSecret }),
  clientID: process.env.KUDOS_CLIENT_ID ?? 'kudos-demo-client',
  clientSecret: process.env.KUDOS_CLIENT_SECRET ?? 'kudos-demo-secret',
  authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000',
  baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api',
};
const appURL = process.env.APP_URL ?? 'http://localhost:3000';

// Sign in (or sign up) with Kudos. The provider is 'kudos' (profile.provider) and the subject the
// Kudos user ID (profile.id): the account's handle, the same at every sign-in.
passport.use(
  new KudosStrategy(
    // An absolute callbackURL: a relative one ('/auth/kudos/callback') takes its host from the request,
    // and a user who typed 127.0.0.1 where localhost is registered would be refused by Kudos.
    { ...kudos, callbackURL: `${appURL}/auth/kudos/callback` },
    (_accessToken, _refreshToken, profile, done) => {
      const key = `${profile.provider}:${profile.id}`;
      let id = credentials.get(key);
      if (id === undefined) {
        id = String(users.size + 1);
        users.set(id, { id, name: profile.displayName });
        credentials.set(key, id);
      }
      done(null, users.get(id));
    },
  ),
);

// Link Kudos to the account a user is signed in to (passport.authorize: the session's user stays;
// the Kudos profile arrives as req.account). Its own name and callback, registered for your client too.
passport.use(
  'kudos-link',
  new KudosStrategy(
    { ...kudos, callbackURL: `${appURL}/connect/kudos/callback` },
    // The account to link: the credential's subject, for the callback below.
    (_accessToken, _refreshToken, profile, done) => done(null, { id: profile.id, name: profile.displayName }),
  ),
);

passport.serializeUser((user, done) => done(null, user.id));
passport.deserializeUser((id: string, done) => done(null, users.get(id) ?? false));

const app = express();
app.use(session({ secret: sessionSecret, resave: false, saveUninitialized: false }));
app.use(passport.session());

app.get('/auth/kudos', passport.authenticate('kudos'));
app.get(
  '/auth/kudos/callback',
  // A declined (or stale) sign-in goes back with a word in the URL: nothing is written for a visitor.
  passport.authenticate('kudos', { failureRedirect: '/login?failed=1' }),
  (_req, res) => res.redirect('/'),
);
app.get('/login', (req, res) => {
  res.send(
    `Sign in. ${req.query.failed ? 'Signing in with Kudos did not complete: declined, or expired.' : ''}`,
  );
});

// In your app, the user signed in with another provider; here a route stands for that sign-in.
app.get('/test/sign-in-as-ada', (req, res, next) =>
  req.login(users.get('1') as Express.User, (error) => (error ? next(error) : res.redirect('/'))),
);
app.get('/connect/kudos', passport.authorize('kudos-link'));
app.get('/connect/kudos/callback', passport.authorize('kudos-link', { failureRedirect: '/' }), (req, res) => {
  if (req.account && req.user) credentials.set(`kudos:${req.account.id}`, req.user.id);
  res.redirect('/');
});

app.get('/', (req, res) => {
  const linked = [...credentials].filter(([, id]) => id === req.user?.id).map(([key]) => key);
  res.json({ user: req.user ?? null, linked });
});

app.listen(Number(process.env.PORT ?? 3000));
