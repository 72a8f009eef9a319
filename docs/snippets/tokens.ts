// Fragment: the tokens part of your app, beside the quick start's strategy (it shows the calls, not a
// whole server: `/me/kudos` answers 401 until the user signed in through this app's own sign-in).
// Keep users signed in: store the token set at sign-in, then call the API for them.
import express from 'express';
import passport from 'passport';
import {
  createKudosClient,
  KudosApiError,
  KudosStrategy,
  KudosTokenError,
  type KudosVerifyWithParams,
  MemoryTokenStore,
} from 'passport-kudos';

const tokens = new MemoryTokenStore(); // one process; see "Running several instances" for Redis

// Five parameters (params before profile): passport-oauth2 picks the form by the function's arity,
// so `_done` stays in the list even though an async function returns the user instead.
const verify: KudosVerifyWithParams = async (_accessToken, _refreshToken, params, profile, _done) => {
  await tokens.set(profile.id, params.tokenSet); // store before use: a new refresh token ends the old one
  return { id: profile.id, name: profile.displayName };
};

const strategy = new KudosStrategy(
  {
    clientID: process.env.KUDOS_CLIENT_ID ?? 'kudos-demo-client',
    clientSecret: process.env.KUDOS_CLIENT_SECRET ?? 'kudos-demo-secret',
    callbackURL: 'http://localhost:3000/auth/kudos/callback',
    authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000',
    baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api',
    scope: ['profile', 'read:kudos.info'],
  },
  verify,
);
passport.use(strategy);

// The client takes the API address from the strategy, refreshes once when needed (one refresh for
// many concurrent calls), and has a time limit (10 s by default).
const kudos = createKudosClient({ strategy, tokens });

const app = express();
app.get('/me/kudos', async (req, res, next) => {
  if (!req.user) return res.sendStatus(401);
  try {
    res.json(await kudos.json(req.user.id, '/users/profile'));
  } catch (error) {
    if (error instanceof KudosTokenError && error.code === 'reauth_required')
      return res.redirect('/auth/kudos');
    if (error instanceof KudosApiError) return res.status(error.status).json({ code: error.code });
    next(error);
  }
});

declare global {
  namespace Express {
    interface User {
      id: string;
      name: string;
    }
  }
}
