import type { Request } from 'express';
import type { KudosScope } from 'kudos-core';
import { KudosAuthorizationError, KudosError } from 'kudos-core';
import type OAuth2Strategy from 'passport-oauth2';
// The class by its name, not the module's default: the CommonJS build then reads passport-oauth2's
// exports as they are, without wrapping the whole module at every require() (see bench/notes.md).
import { Strategy as OAuth2Base } from 'passport-oauth2';
import { resolveCallbackURL } from '../callback/callback-url.js';
import { finishCallback, type KudosStrategyConfig } from '../callback/exchange.js';
import { defaultUserProfile, type ProfileCallback } from '../callback/load-profile.js';
import { type CallbackParams, readCallbackParams } from '../callback/params.js';
import { stateStoreFor } from '../callback/state-store.js';
import type { KudosTokenSet } from '../tokens/token-set.js';
import {
  type KudosStrategyOptions,
  type KudosStrategyOptionsBase,
  type KudosStrategyOptionsWithRequest,
  type KudosVerify,
  type KudosVerifyFunction,
  type KudosVerifyFunctionWithRequest,
  type KudosVerifyWithRequest,
  resolveOptions,
} from './options.js';
import { type LoginStep, traceLogin } from './trace-login.js';

/** Message of the Passport failure when the user declines on the Kudos consent page. */
export const DENIED_MESSAGE = 'You declined to sign in with Kudos.';

/** Error values that mean the user said no: a failure, not a server error. */
const REFUSALS = new Set(['denied', 'access_denied']);

/** Per-request options of `passport.authenticate('kudos', options)` that the strategy reads. */
export interface KudosAuthenticateOptions {
  /** Scopes for this request instead of the configured ones. */
  scope?: KudosScope | readonly KudosScope[];
  /** Callback URL for this request instead of the configured one. */
  callbackURL?: string;
  /** A fixed state value (disables the state store for this request, as in passport-oauth2). */
  state?: string;
  [option: string]: unknown;
}

/** Anything thrown inside `authenticate()`, as the typed error handed to `this.error()`. */
function asKudosError(error: unknown): KudosError {
  if (error instanceof KudosError) return error;
  // The cause is kept for the app's logs; the message names no request value.
  return new KudosError('internal_error', {
    message: 'the Kudos login could not be processed',
    cause: error,
  });
}

/** The login step a request is, as its trace names it. */
function loginStep(
  params: CallbackParams,
  options: KudosAuthenticateOptions,
  config: KudosStrategyConfig,
): LoginStep {
  if (params.kind !== 'start')
    return { kind: 'callback', declined: params.kind === 'error' && REFUSALS.has(params.error) };
  const scope = options.scope ?? config.scope;
  return {
    kind: 'authorize',
    authorizationURL: config.authorizationURL,
    scope: typeof scope === 'string' ? scope : scope.join(' '),
  };
}

/**
 * What each strategy keeps besides what passport-oauth2 keeps, out of sight of the app: Passport
 * runs a request on an object made with `Object.create(strategy)`, so it is found by walking up.
 */
const configs = new WeakMap<object, KudosStrategyConfig>();

function configOf(strategy: object): KudosStrategyConfig {
  for (let object: object | null = strategy; object; object = Object.getPrototypeOf(object)) {
    const config = configs.get(object);
    if (config) return config;
  }
  throw new TypeError('KudosStrategy method called on an object that is no KudosStrategy');
}

/** Refresh and revocation once loaded (a dynamic import of a loaded module still costs a trip through the loader). */
let refreshModule: Promise<typeof import('../tokens/refresh.js')> | undefined;

/**
 * Refresh and revocation, loaded when first used: a sign-in never needs them, so an app's start does
 * not compile them (see bench/notes.md, cold start).
 */
function loadRefresh(): Promise<typeof import('../tokens/refresh.js')> {
  refreshModule ??= import('../tokens/refresh.js');
  return refreshModule;
}

/** Starts or finishes a login on `strategy` (Passport's per-request object, or its tracing stand-in). */
function runLogin(
  strategy: KudosStrategy,
  config: KudosStrategyConfig,
  req: Request,
  options: KudosAuthenticateOptions,
  params: CallbackParams,
): void {
  if (params.kind === 'start') {
    // Resolve a relative callback URL here, the same way the callback does: passport-oauth2's own
    // resolution reads req.connection, which requests of other frameworks (Fastify) do not have.
    const callbackURL = resolveCallbackURL(options.callbackURL ?? config.callbackURL, req, config.proxy);
    OAuth2Base.prototype.authenticate.call(strategy, req, { ...options, callbackURL });
  } else if (params.kind === 'invalid') {
    // Nothing of a malformed callback reaches passport-oauth2's callback or the token endpoint.
    strategy.error(new KudosError('invalid_request', { message: params.message }));
  } else if (params.kind === 'error') {
    // The user's refusal is a normal outcome: fail(), so failureRedirect and failureMessage work.
    if (REFUSALS.has(params.error)) strategy.fail({ message: DENIED_MESSAGE }, 403);
    else strategy.error(new KudosAuthorizationError(params.error, { description: params.description }));
  } else {
    finishCallback(strategy, config, req, options, params.code, params.state);
  }
}

/**
 * Passport strategy for signing in with Kudos (OAuth 2.0 authorization code).
 *
 * It extends passport-oauth2's `Strategy` and changes only what Kudos needs: the profile comes
 * from the token response itself (no second request), the code may arrive under three names,
 * `error=denied` is a failure rather than an error, and the token request has a time limit and
 * typed errors carrying the service's own error code.
 *
 * @example
 * ```ts
 * import passport from 'passport';
 * import { KudosStrategy } from 'passport-kudos';
 * passport.use(
 *   new KudosStrategy(
 *     { clientID: 'kudos-demo-client', clientSecret: 'kudos-demo-secret', callbackURL: '/auth/kudos/callback', authURL: 'http://127.0.0.1:4000', baseURL: 'http://127.0.0.1:4000/api' },
 *     (_accessToken, _refreshToken, profile, done) => done(null, { id: profile.id }),
 *   ),
 * );
 * ```
 * @see docs/kudos-service.md#authorization-page, docs/kudos-service.md#token-exchange
 */
export class KudosStrategy extends OAuth2Base {
  // The shortest form first, so that an inline verify lambda of arity 4 (5 with the request) gets
  // its parameter types from the context; the forms with `params` take the exported types
  // (TypeScript fixes a lambda's parameter types from the first overload it tries).
  constructor(options: KudosStrategyOptions, verify: KudosVerify);
  constructor(options: KudosStrategyOptions, verify: KudosVerifyFunction);
  constructor(options: KudosStrategyOptionsWithRequest, verify: KudosVerifyWithRequest);
  constructor(options: KudosStrategyOptionsWithRequest, verify: KudosVerifyFunctionWithRequest);
  // Last and most general: mixins such as NestJS's PassportStrategy() read the parameters of the last
  // overload, so it must accept either form of the options. One interface rather than the union of
  // the two: a call that matches no overload is explained by this one, and against one interface
  // TypeScript names just the option that is missing or wrong.
  constructor(
    options: KudosStrategyOptionsBase & { passReqToCallback?: boolean },
    verify: KudosVerifyFunction | KudosVerifyFunctionWithRequest,
  );
  constructor(
    options: KudosStrategyOptions | KudosStrategyOptionsWithRequest,
    verify: KudosVerifyFunction | KudosVerifyFunctionWithRequest,
  ) {
    const endpoints = resolveOptions(options);
    if (typeof verify !== 'function') throw new TypeError('KudosStrategy requires a verify function');
    const state = options.state ?? true;
    // The store passport-oauth2 would set up, made here and handed to it, so that the callback
    // verifies with the very store the redirect used (passport-oauth2 keeps its own out of reach).
    const stateStore = stateStoreFor({ ...options, state, authorizationURL: endpoints.authorizationURL });
    super(
      {
        authorizationURL: endpoints.authorizationURL,
        tokenURL: endpoints.tokenURL,
        clientID: options.clientID,
        clientSecret: options.clientSecret,
        callbackURL: options.callbackURL,
        scope: endpoints.scope,
        scopeSeparator: ' ',
        state,
        store: stateStore,
        pkce: options.pkce,
        sessionKey: options.sessionKey,
        proxy: options.proxy,
        passReqToCallback: options.passReqToCallback === true,
        skipUserProfile: endpoints.skipUserProfile,
        customHeaders: endpoints.request.headers,
      } as OAuth2Strategy.StrategyOptions,
      verify as OAuth2Strategy.VerifyFunction,
    );
    this.name = 'kudos';
    configs.set(this, {
      ...endpoints,
      clientID: options.clientID,
      clientSecret: options.clientSecret,
      callbackURL: options.callbackURL,
      proxy: options.proxy === true,
      passReqToCallback: options.passReqToCallback === true,
      verify: verify as (...args: unknown[]) => unknown,
      pending: new Map(),
      // Defined whenever super() returned: passport-oauth2 throws for the one case without a store.
      stateStore: stateStore as NonNullable<typeof stateStore>,
    });
    // passport-oauth2-refresh's convention, so that it refreshes where refresh() does: set for it,
    // kept out of the types and of Object.keys().
    Object.defineProperty(this, '_refreshURL', {
      value: endpoints.refreshURL,
      writable: true,
      configurable: true,
    });
  }

  /** `{baseURL}` of the Kudos API, when given in the options; `createKudosClient` uses it by default. */
  get baseURL(): string | undefined {
    return configOf(this).baseURL;
  }

  /**
   * Gets a new token set with a refresh token (`grant_type=refresh_token` at `refreshURL`, by
   * default the token endpoint, as in RFC 6749 section 6), with the same time limit and errors
   * as the login. Keeps the old refresh token when the answer has none or repeats it (the service
   * keeps refresh tokens, docs/kudos-service.md#refresh-and-revocation), and the user and scope of
   * `previous` when the answer lacks them. Store the result before using it: when a new refresh
   * token is issued, the old one is dead (docs/kudos-service.md#limits rule a).
   *
   * @throws KudosTokenError `reauth_required` (401) when the service refuses the refresh token
   */
  refresh(refreshToken: string, previous?: KudosTokenSet): Promise<KudosTokenSet> {
    const config = configOf(this);
    return loadRefresh().then((tokens) => tokens.refreshTokenSet(config, refreshToken, previous));
  }

  /**
   * Revokes a token at `revokeURL` (RFC 7009 form; docs/kudos-service.md#limits rule c). The interface shows no
   * revocation endpoint, so this needs the `revokeURL` option.
   *
   * @throws KudosError `revoke_url_missing` without the option; KudosTokenError when refused
   */
  revoke(token: string, hint?: 'access_token' | 'refresh_token'): Promise<void> {
    const config = configOf(this);
    return loadRefresh().then((tokens) => tokens.revokeAtEndpoint(config, token, hint));
  }

  /**
   * passport-oauth2's hook for the profile verify gets. This one answers the Kudos profile of the
   * login's token response without a request; with the `fetchProfile` option (or when called outside
   * a login) it asks `GET {baseURL}/users/profile`, which adds `emails` and the wallet addresses.
   * Override it to load more (call `super.userProfile()` for the Kudos profile); `skipUserProfile`
   * skips it.
   *
   * @see docs/kudos-service.md#authenticated-api
   */
  override userProfile(accessToken: string, done: ProfileCallback): void {
    defaultUserProfile(configOf(this), accessToken, done);
  }

  /**
   * passport-oauth2's hook for an error answer of the token endpoint (`body` with the request's
   * secrets redacted, `status` as answered). Return an `Error` to pass that to Passport instead of
   * the typed `KudosTokenError`; this one returns `null`, so the `KudosTokenError` is used.
   */
  override parseErrorResponse(_body: string, _status: number): Error | null {
    return null;
  }

  /**
   * Starts the login (redirect to the authorization page) or finishes it (callback).
   * Called by Passport; apps call `passport.authenticate('kudos', options)`.
   */
  override authenticate(req: Request, options: KudosAuthenticateOptions = {}): void {
    // Never throw into the framework: whatever goes wrong here becomes this.error(KudosError).
    try {
      const config = configOf(this);
      const params = readCallbackParams(req);
      const operation = params.kind === 'start' ? 'authorize' : 'callback';
      traceLogin(
        this,
        operation,
        () => loginStep(params, options, config),
        (target) => {
          try {
            runLogin(target, config, req, options, params);
          } catch (error) {
            target.error(asKudosError(error));
          }
        },
      );
    } catch (error) {
      this.error(asKudosError(error));
    }
  }
}
