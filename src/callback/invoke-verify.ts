import { isThenable } from 'kudos-core';
import type { KudosTokenParams } from '../tokens/token-params.js';

/** The verify callback Passport expects: `done(err, user, info)`. */
export type VerifiedCallback = (err?: unknown, user?: unknown, info?: unknown) => void;

/** Everything the strategy has for a verify function after a successful token exchange. */
interface VerifyArguments {
  req: unknown;
  accessToken: string;
  refreshToken: string | undefined;
  /** Made only for a verify function that takes them (5 arguments, 6 with the request). */
  params: () => KudosTokenParams;
  /** What `userProfile()` gave (the Kudos profile unless an override gave something else). */
  profile: unknown;
}

type AnyVerify = (...args: unknown[]) => unknown;

function callByArity(
  verify: AnyVerify,
  passReqToCallback: boolean,
  args: VerifyArguments,
  done: VerifiedCallback,
): unknown {
  const { req, accessToken, refreshToken, params, profile } = args;
  if (passReqToCallback) {
    if (verify.length === 6) return verify(req, accessToken, refreshToken, params(), profile, done);
    return verify(req, accessToken, refreshToken, profile, done);
  }
  if (verify.length === 5) return verify(accessToken, refreshToken, params(), profile, done);
  return verify(accessToken, refreshToken, profile, done);
}

/**
 * Calls the app's verify function with the arguments its arity asks for, as passport-oauth2 does:
 * `(accessToken, refreshToken, profile, done)` or with `params` before `profile` when it takes 5;
 * with `passReqToCallback`, the request first and 5 or 6 arguments.
 *
 * Beyond passport-oauth2, a verify function may return a promise (an `async` function): a rejection
 * is passed to `done(err)`, a resolved user (anything but `undefined`) to `done(null, user)`, so
 * `false` fails the login. `undefined` leaves the answer to `done`. A synchronous throw is passed to
 * `done(err)` too. `done` takes effect once; later calls are ignored. No rejection ever escapes.
 */
export function invokeVerify(
  verify: AnyVerify,
  passReqToCallback: boolean,
  args: VerifyArguments,
  done: VerifiedCallback,
): void {
  let answered = false;
  const once: VerifiedCallback = (err, user, info) => {
    if (answered) return;
    answered = true;
    done(err, user, info);
  };
  let result: unknown;
  try {
    result = callByArity(verify, passReqToCallback, args, once);
  } catch (error) {
    if (answered) throw error; // thrown after done() answered: the caller's own handling applies
    once(error ?? new Error('verify function threw'));
    return;
  }
  if (!isThenable(result)) return;
  result.then(
    (user) => {
      if (user !== undefined) once(null, user);
    },
    (error: unknown) => once(error ?? new Error('verify function rejected')),
  );
}
