import type { Request } from 'express';
import type { KudosScope, KudosTokenResponse } from 'kudos-core';
import { isObjectLike } from 'kudos-core';
import { InternalOAuthError } from 'passport-oauth2';
import { toTokenParams } from '../tokens/token-params.js';
import type { TokenEndpointRequest } from '../tokens/token-request.js';
import { requestTokens, tracedTokenRequest } from '../tokens/token-request.js';
import { toTokenSet } from '../tokens/token-set.js';
import { resolveCallbackURL } from './callback-url.js';
import { invokeVerify, type VerifiedCallback } from './invoke-verify.js';
import {
  type KudosSkipUserProfile,
  loadProfile,
  type ProfileCallback,
  type ProfileConfig,
} from './load-profile.js';
import { type StateVerifier, verifyState } from './state-store.js';

// The callback half of the login: check the state, exchange the code, build the profile, call the
// app's verify function. passport-oauth2's own callback code cannot be reused as it is (it asks the
// token endpoint through node-oauth, with no time limit and untyped errors, then fetches a profile
// the service does not have), so this file reproduces what it does, item by item:
//
//  1. state-store arity: `store.verify(req, state, meta, cb)` when the store's verify takes 4
//     arguments, `store.verify(req, state, cb)` otherwise; `meta` = { authorizationURL, tokenURL,
//     clientID, callbackURL };
//  2. a state the store rejects is `fail(info, 403)`; a store error is `error(err)`;
//  3. PKCE: a string the store hands back as `ok` is the code verifier, sent as `code_verifier`;
//  4. `tokenParams(options)` of the strategy are added to the token request, encoded as node-oauth
//     encodes them (numbers and booleans as text, arrays as repeated keys), with `customHeaders`;
//  5. verify arity: 4 or 5 arguments, 5 or 6 with passReqToCallback (see invoke-verify.ts);
//  6. `done(err)` is `error()`, `done(null, false, info)` is `fail(info)`, `done(null, user, info)`
//     is `success(user, info || {})` with `state` set on an object `info` to what the state store
//     returned (any other `info` is passed on as it is);
//  7. an error answer of the token endpoint goes through `parseErrorResponse(body, status)`: an
//     `Error` it returns is the error; when it throws, passport-oauth2's `InternalOAuthError`
//     ('Failed to obtain access token', wrapping `{ statusCode, data }` as node-oauth does); else
//     the typed KudosTokenError;
//  8. the profile: `skipUserProfile` decides, else `userProfile(accessToken, done)` (load-profile.ts).
//
// test/callback/exchange.test.ts has a test per item, so a passport-oauth2 upgrade can be checked.

/** Per-request options the callback reads. */
interface CallbackOptions {
  scope?: KudosScope | readonly KudosScope[];
  callbackURL?: string;
  [option: string]: unknown;
}

/** The endpoints and limits a strategy works with, after defaults are applied. */
export interface ResolvedEndpoints {
  /** `{baseURL}` of the API when the options gave it (the API client's default). */
  baseURL: string | undefined;
  authorizationURL: string;
  tokenURL: string;
  refreshURL: string;
  revokeURL: string | undefined;
  /** `{baseURL}/users/profile` or the `profileURL` option; undefined when neither was given. */
  profileURL: string | undefined;
  scope: string;
  /** Time limit and headers of every request to the token endpoint. */
  request: TokenEndpointRequest;
  skipUserProfile: KudosSkipUserProfile;
  fetchProfile: boolean;
}

/** What the strategy keeps besides what passport-oauth2 keeps. */
export interface KudosStrategyConfig extends ResolvedEndpoints, ProfileConfig {
  clientID: string;
  clientSecret: string;
  callbackURL: string;
  proxy: boolean;
  passReqToCallback: boolean;
  verify: (...args: unknown[]) => unknown;
  /** The state store the strategy gave passport-oauth2 (state-store.ts): the callback verifies with it. */
  stateStore: StateVerifier;
}

/** The strategy as this file needs it: Passport's actions and its hooks. */
interface CallbackStrategy {
  success(user: Express.User, info?: object): void;
  fail(challenge?: object, status?: number): void;
  error(err: Error): void;
  tokenParams(options: object): object;
  parseErrorResponse(body: string, status: number): unknown;
  userProfile(accessToken: string, done: ProfileCallback): void;
}

/** Item 7: the strategy's hook, with passport-oauth2's answer when the hook throws. */
function errorParser(strategy: CallbackStrategy) {
  return (body: string, status: number): unknown => {
    try {
      return strategy.parseErrorResponse(body, status);
    } catch {
      // The body is the redacted one: no secret of the request reaches the app's logs this way.
      return new InternalOAuthError('Failed to obtain access token', { statusCode: status, data: body });
    }
  };
}

/** The token set of a response, made when asked for, as it was at `issuedAt` (when the login happened). */
function tokenSetAt(
  response: KudosTokenResponse,
  scope: CallbackOptions['scope'] | string,
  issuedAt: number,
) {
  return () => toTokenSet(response, scope, issuedAt);
}

/** Hands a valid token response to the app's verify function (items 5 and 6). */
function verifyResponse(
  strategy: CallbackStrategy,
  config: KudosStrategyConfig,
  req: Request,
  response: KudosTokenResponse,
  profile: unknown,
  stateInfo: unknown,
  requestedScope: CallbackOptions['scope'],
): void {
  const done: VerifiedCallback = (err, user, info) => {
    try {
      if (err) return strategy.error(err as Error);
      if (!user) return strategy.fail(info as object);
      const details = info || {};
      // passport-oauth2 sets `state` on the app's own info object, and on nothing else.
      if (stateInfo && isObjectLike(details)) Reflect.set(details, 'state', stateInfo);
      strategy.success(user as Express.User, details as object);
    } catch (error) {
      // Thrown further down the middleware chain (after a promise, it would be a lost rejection).
      strategy.error(error as Error);
    }
  };
  try {
    invokeVerify(
      config.verify,
      config.passReqToCallback,
      {
        req,
        accessToken: response.access_token,
        refreshToken: response.refresh_token,
        params: () =>
          toTokenParams(response, tokenSetAt(response, requestedScope ?? config.scope, Date.now())),
        profile,
      },
      done,
    );
  } catch (error) {
    strategy.error(error as Error);
  }
}

/**
 * Finishes a login at the callback: checks the state (items 1 and 2), exchanges the code (items 3
 * and 4) and calls verify. Every outcome goes to one of the strategy's Passport actions.
 *
 * @throws KudosError `invalid_callback_url` when the request's host makes the callback URL unusable
 */
export function finishCallback(
  strategy: CallbackStrategy,
  config: KudosStrategyConfig,
  req: Request,
  options: CallbackOptions,
  code: string,
  state: string | undefined,
): void {
  const callbackURL = resolveCallbackURL(options.callbackURL ?? config.callbackURL, req, config.proxy);
  const meta = {
    authorizationURL: config.authorizationURL,
    tokenURL: config.tokenURL,
    clientID: config.clientID,
    callbackURL,
  };
  const loaded = (err: Error | null, ok: unknown, stateInfo: unknown): void => {
    if (err) return strategy.error(err);
    if (!ok) return strategy.fail(stateInfo as object, 403);
    const form: Record<string, unknown> = {
      ...strategy.tokenParams(options),
      grant_type: 'authorization_code',
      code,
      redirect_uri: callbackURL,
      client_id: config.clientID,
      client_secret: config.clientSecret,
    };
    if (typeof ok === 'string') form.code_verifier = ok; // PKCE verifier from the state store
    // Leave the promise before calling back into Passport, so that an exception thrown further
    // down the middleware chain behaves as it does under passport-oauth2 (not a lost rejection).
    const profiled = (response: KudosTokenResponse) =>
      loadProfile(strategy, config, response, (err, profile) => {
        if (err) return strategy.error(err as Error);
        verifyResponse(strategy, config, req, response, profile, stateInfo, options.scope);
      });
    tracedTokenRequest('token', config.tokenURL, (message) =>
      requestTokens(
        config.tokenURL,
        form,
        {
          ...config.request,
          parseErrorResponse: errorParser(strategy),
        },
        message,
      ),
    ).then(
      (response) => process.nextTick(profiled, response),
      (error: unknown) => process.nextTick(() => strategy.error(error as Error)),
    );
  };
  try {
    verifyState(config.stateStore, req, state as string, meta, loaded);
  } catch (error) {
    strategy.error(error as Error);
  }
}
