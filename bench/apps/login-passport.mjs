// The login callback under Express 5 + express-session + passport, with either KudosStrategy or
// the plain passport-oauth2 subclass that the existing peer package is (the anchor); SUBSCRIBE adds
// a subscriber of passport-kudos's tracing channels (./subscribe.mjs).
import express from 'express';
import session from 'express-session';
import passport from 'passport';
import { KudosStrategy } from 'passport-kudos';
import OAuth2Strategy from 'passport-oauth2';
import './subscribe.mjs';

const tokenURL = `http://127.0.0.1:${process.env.TOKEN_PORT}/oauth/access_token`;
const common = { clientID: 'bench', clientSecret: 'bench-secret', callbackURL: '/callback' };
const verify = (_at, _rt, profile, done) => done(null, { id: profile.id ?? 'anonymous' });

/** The peer package: a 10-line subclass of passport-oauth2 with fixed URLs. */
class PeerStrategy extends OAuth2Strategy {
  constructor(options, fn) {
    super({ ...options, authorizationURL: 'https://kudos.example/in/oauth/', tokenURL, state: true }, fn);
    this.name = 'kudos';
  }
}

const strategy =
  process.env.STRATEGY === 'anchor'
    ? new PeerStrategy(common, verify)
    : new KudosStrategy({ ...common, authURL: 'https://kudos.example', tokenURL }, verify);

const authenticator = new passport.Passport();
authenticator.use(strategy);
authenticator.serializeUser((user, done) => done(null, user.id));
authenticator.deserializeUser((id, done) => done(null, { id }));

const app = express();
app.use(session({ secret: 'bench-session-secret', resave: false, saveUninitialized: false }));
app.use(authenticator.session());
app.get('/login', authenticator.authenticate('kudos'));
app.get(
  '/callback',
  authenticator.authenticate('kudos', { successRedirect: '/me', failureRedirect: '/failed' }),
);
const server = app.listen(0, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
server.keepAliveTimeout = 60_000;
process.on('SIGTERM', () => process.exit(0));
