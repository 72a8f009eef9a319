// The verify function, in each form passport-oauth2 supports (TypeScript, strict).
import type { Request } from 'express';
import {
  type KudosProfile,
  KudosStrategy,
  type KudosTokenParams,
  type KudosVerifyCallback,
  type KudosVerifyWithParams,
  type KudosVerifyWithRequestAndParams,
} from 'passport-kudos';

const options = {
  clientID: 'kudos-demo-client',
  clientSecret: 'kudos-demo-secret',
  callbackURL: 'http://localhost:3000/auth/kudos/callback',
  authURL: 'http://127.0.0.1:4000',
  baseURL: 'http://127.0.0.1:4000/api',
};

// 1. (accessToken, refreshToken, profile, done): an inline lambda is typed by the constructor.
new KudosStrategy(options, (_accessToken, _refreshToken, profile, done) => {
  done(null, { id: profile.id, name: profile.displayName });
});

// 2. (accessToken, refreshToken, params, profile, done): params is the token response, with
//    expires_in and the token set to store. Type the function with the exported type.
const withParams: KudosVerifyWithParams = (_accessToken, _refreshToken, params, profile, done) => {
  console.log(params.expires_in, params.tokenSet.expiresAt);
  done(null, { id: profile.id, name: profile.displayName });
};
new KudosStrategy(options, withParams);

// 3. With passReqToCallback: the request first (5 or 6 arguments).
new KudosStrategy({ ...options, passReqToCallback: true }, (req: Request, _at, _rt, profile, done) => {
  done(null, { id: profile.id, name: `${profile.displayName} (${req.ip})` });
});
const withRequestAndParams: KudosVerifyWithRequestAndParams = (_req, _at, _rt, _params, profile, done) =>
  done(null, { id: profile.id, name: profile.displayName });
new KudosStrategy({ ...options, passReqToCallback: true }, withRequestAndParams);

// 4. An async function: return the user (or false to refuse). A rejection goes to your error handler.
async function findOrCreate(profile: KudosProfile): Promise<Express.User> {
  return { id: profile.id, name: profile.displayName };
}
new KudosStrategy(options, async (_accessToken, _refreshToken, profile) => findOrCreate(profile));

// Types to reuse in your own code.
export type { KudosTokenParams, KudosVerifyCallback };

declare global {
  namespace Express {
    interface User {
      id: string;
      name: string;
    }
  }
}
