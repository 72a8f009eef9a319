import type { KudosTokenResponse } from 'kudos-core';
import { isThenable, KudosError, profileFromResponse } from 'kudos-core';
import { requestProfile } from '../tokens/profile-request.js';
import type { TokenEndpointRequest } from '../tokens/token-request.js';

// passport-oauth2's profile step, with one deliberate difference: a skipped profile is the Kudos
// profile of the token response (it costs no request), where passport-oauth2 passes none.

/** `skipUserProfile`, in each form passport-oauth2 accepts (and a promise-returning one). */
export type KudosSkipUserProfile =
  | boolean
  | ((accessToken: string) => boolean | Promise<boolean>)
  | ((accessToken: string, done: (err: unknown, skip?: boolean) => void) => void);

/** `done` of `userProfile()`, as passport-oauth2 defines it. */
export type ProfileCallback = (err?: unknown, profile?: unknown) => void;

/** What the profile step needs of the strategy's configuration. */
export interface ProfileConfig {
  skipUserProfile: KudosSkipUserProfile;
  fetchProfile: boolean;
  profileURL: string | undefined;
  request: TokenEndpointRequest;
  /**
   * Token responses of logins whose `userProfile()` call is under way, by access token: the default
   * `userProfile()` answers from them, also when an override calls `super.userProfile()`.
   */
  pending: Map<string, KudosTokenResponse>;
}

/** Logins whose `userProfile()` never answers must not keep their token response forever. */
const MAX_PENDING = 10_000;

/** Calls `cb` once, outside any promise chain (an exception thrown by Passport stays synchronous). */
function onceOutside<A extends unknown[]>(cb: (...args: A) => void): (...args: A) => void {
  let called = false;
  return (...args: A) => {
    if (called) return;
    called = true;
    process.nextTick(() => cb(...args));
  };
}

/** Evaluates `skipUserProfile` in each form passport-oauth2 accepts, and a promise-returning one. */
function decideSkip(
  skip: KudosSkipUserProfile,
  accessToken: string,
  cb: (err: unknown, skip: boolean) => void,
): void {
  if (typeof skip !== 'function') return cb(null, skip);
  const answer = onceOutside(cb);
  try {
    if (skip.length > 1) {
      (skip as (token: string, done: (err: unknown, skip?: boolean) => void) => void)(accessToken, (err, s) =>
        answer(err, Boolean(s)),
      );
      return;
    }
    const result = (skip as (token: string) => unknown)(accessToken);
    if (!isThenable(result)) return answer(null, Boolean(result));
    result.then(
      (s) => answer(null, Boolean(s)),
      (err: unknown) => answer(err ?? new Error('skipUserProfile rejected'), false),
    );
  } catch (error) {
    answer(error, false);
  }
}

/**
 * The profile verify gets: the Kudos profile of the token response when `skipUserProfile` says
 * skip, else what the strategy's `userProfile(accessToken, done)` answers (an override's result as
 * it is). An error of either goes to `done(err)`.
 */
export function loadProfile(
  strategy: { userProfile(accessToken: string, done: ProfileCallback): void },
  config: ProfileConfig,
  response: KudosTokenResponse,
  done: ProfileCallback,
): void {
  const token = response.access_token;
  decideSkip(config.skipUserProfile, token, (err, skip) => {
    if (err) return done(err);
    if (skip) return done(null, profileFromResponse(response));
    if (config.pending.size >= MAX_PENDING)
      config.pending.delete(config.pending.keys().next().value as string);
    config.pending.set(token, response);
    let answered = false;
    const finish: ProfileCallback = (error, profile) => {
      if (answered) return;
      answered = true;
      config.pending.delete(token);
      done(error, profile);
    };
    try {
      strategy.userProfile(token, finish);
    } catch (error) {
      if (answered) throw error; // thrown further down, after done: not the profile step's
      finish(error);
    }
  });
}

/**
 * KudosStrategy's own `userProfile()`: the Kudos profile of the login's token response, with no
 * request; or, with `fetchProfile` (or outside a login), `GET {baseURL}/users/profile`.
 */
export function defaultUserProfile(config: ProfileConfig, accessToken: string, done: ProfileCallback): void {
  const response = config.pending.get(accessToken);
  if (response && !config.fetchProfile) return done(null, profileFromResponse(response));
  const answer = onceOutside(done);
  if (config.profileURL === undefined) {
    return answer(
      new KudosError('profile_url_missing', {
        message: 'userProfile() outside a login needs the "baseURL" (or "profileURL") option',
      }),
    );
  }
  requestProfile({ url: config.profileURL, accessToken, timeout: config.request.timeout }).then(
    (profile) => answer(null, profile),
    (error: unknown) => answer(error),
  );
}
