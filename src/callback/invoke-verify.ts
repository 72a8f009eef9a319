import type { KudosProfile } from '../profile.js';
import type { KudosTokenParams } from '../token-response.js';

/** The verify callback Passport expects: `done(err, user, info)`. */
export type VerifiedCallback = (err?: unknown, user?: unknown, info?: unknown) => void;

/** Everything the strategy has for a verify function after a successful token exchange. */
export interface VerifyArguments {
  req: unknown;
  accessToken: string;
  refreshToken: string | undefined;
  params: KudosTokenParams;
  profile: KudosProfile;
}

type AnyVerify = (...args: unknown[]) => unknown;

/**
 * Calls the app's verify function with the arguments its arity asks for, as passport-oauth2 does:
 * `(accessToken, refreshToken, profile, done)` or with `params` before `profile` when it takes 5;
 * with `passReqToCallback`, the request first and 5 or 6 arguments.
 */
export function invokeVerify(
  verify: AnyVerify,
  passReqToCallback: boolean,
  args: VerifyArguments,
  done: VerifiedCallback,
): void {
  const { req, accessToken, refreshToken, params, profile } = args;
  if (passReqToCallback) {
    if (verify.length === 6) verify(req, accessToken, refreshToken, params, profile, done);
    else verify(req, accessToken, refreshToken, profile, done);
  } else if (verify.length === 5) {
    verify(accessToken, refreshToken, params, profile, done);
  } else {
    verify(accessToken, refreshToken, profile, done);
  }
}
