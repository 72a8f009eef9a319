import type { Request } from 'express';
import type { KudosProfile, KudosScope } from 'kudos-core';
import {
  checkPositive,
  DEFAULT_TIMEOUT_MS,
  hasCredentials,
  isObjectLike,
  KUDOS_API,
  KUDOS_PAGES,
  nodeHttp,
  withoutTrailingSlashes,
} from 'kudos-core';
import type OAuth2Strategy from 'passport-oauth2';
import type { ResolvedEndpoints } from '../callback/exchange.js';
import type { KudosSkipUserProfile } from '../callback/load-profile.js';
import type { KudosTokenParams } from '../tokens/token-params.js';
import type { KudosStateStore } from './cookie-state-store.js';

/** Default scope requested when none is configured. */
const DEFAULT_SCOPE: readonly KudosScope[] = ['profile'];

/** Options shared by both forms of {@link KudosStrategyOptions}. */
export interface KudosStrategyOptionsBase {
  /** OAuth client ID given by the Kudos operator. Required. */
  clientID: string;
  /** OAuth client secret. Required; never logged, never put in an error. */
  clientSecret: string;
  /** Redirect address registered (whitelisted) for the client; absolute or relative to the request. Required. */
  callbackURL: string;
  /** `{authURL}`: the authorization page is `{authURL}/in/oauth/`. */
  authURL?: string;
  /** `{baseURL}`: the token endpoint is `{baseURL}/oauth/access_token`. */
  baseURL?: string;
  /** Full authorization page URL; overrides the one derived from `authURL`. */
  authorizationURL?: string;
  /** Full token endpoint URL; overrides the one derived from `baseURL`. */
  tokenURL?: string;
  /** Endpoint for `grant_type=refresh_token`; defaults to the token endpoint (RFC 6749 section 6). */
  refreshURL?: string;
  /** Endpoint for token revocation (RFC 7009 form); the spec shows none, so there is no default. */
  revokeURL?: string;
  /** Scopes to request: a string (space separated) or an array. Default `['profile']`. */
  scope?: KudosScope | readonly KudosScope[];
  /** CSRF protection with a `state` kept in the session (or in `store`). Default `true`. */
  state?: boolean;
  /**
   * Where the `state` is kept between the start and the callback (passed through to passport-oauth2):
   * `new KudosCookieStateStore({ secret })` keeps it in an encrypted cookie, so a sign-in start stores
   * nothing on the server; default passport-oauth2's store in the session.
   */
  store?: OAuth2Strategy.StateStore | KudosStateStore;
  /** PKCE (`true` for S256); passed through to passport-oauth2. Needs `state`. */
  pkce?: boolean;
  /** Session key of the state store. Default `oauth2:<host of the authorization page>`. */
  sessionKey?: string;
  /** Trust `X-Forwarded-Proto`/`X-Forwarded-Host` when resolving a relative `callbackURL`. */
  proxy?: boolean;
  /** Time limit of each token request (and profile request) in milliseconds. Default 10000. */
  timeoutMs?: number;
  /** Headers sent with every token request, as passport-oauth2's `customHeaders`. */
  customHeaders?: Readonly<Record<string, string | number | readonly string[]>>;
  /**
   * Skip `userProfile()`, as in passport-oauth2: a boolean, `(accessToken) => boolean` (or a promise
   * of one), or `(accessToken, done) => void`. Skipped, verify still gets the profile of the token
   * response (passport-oauth2 would pass none). Default `false`.
   */
  skipUserProfile?: KudosSkipUserProfile;
  /**
   * Make the default `userProfile()` ask `GET {baseURL}/users/profile` for the full profile (the
   * wallet addresses, and `email` with the `email` scope). Default `false`: the token response's
   * profile, with no request.
   */
  fetchProfile?: boolean;
  /** Full URL of the profile operation; overrides `{baseURL}/users/profile`. */
  profileURL?: string;
}

export type { KudosSkipUserProfile, ResolvedEndpoints };

/** Options of a strategy whose verify function does not receive the request. */
export interface KudosStrategyOptions extends KudosStrategyOptionsBase {
  passReqToCallback?: false;
}

/** Options of a strategy whose verify function receives the request first. */
export interface KudosStrategyOptionsWithRequest extends KudosStrategyOptionsBase {
  passReqToCallback: true;
}

/** Passport's `done` callback of a verify function. */
export type KudosVerifyCallback = (err?: unknown, user?: Express.User | false | null, info?: object) => void;

/** Verify function of arity 4: `(accessToken, refreshToken, profile, done)`. */
export type KudosVerify = (
  accessToken: string,
  refreshToken: string | undefined,
  profile: KudosProfile,
  done: KudosVerifyCallback,
) => void;

/** Verify function of arity 5, with the token response as `params`. */
export type KudosVerifyWithParams = (
  accessToken: string,
  refreshToken: string | undefined,
  params: KudosTokenParams,
  profile: KudosProfile,
  done: KudosVerifyCallback,
) => void;

/** Verify function of arity 5 with `passReqToCallback`: the request first. */
export type KudosVerifyWithRequest = (
  req: Request,
  accessToken: string,
  refreshToken: string | undefined,
  profile: KudosProfile,
  done: KudosVerifyCallback,
) => void;

/** Verify function of arity 6 with `passReqToCallback`: the request first, then `params`. */
export type KudosVerifyWithRequestAndParams = (
  req: Request,
  accessToken: string,
  refreshToken: string | undefined,
  params: KudosTokenParams,
  profile: KudosProfile,
  done: KudosVerifyCallback,
) => void;

/** Any verify function without the request (arity 4 or 5). */
export type KudosVerifyFunction = KudosVerify | KudosVerifyWithParams;

/** Any verify function with the request first (arity 5 or 6). */
export type KudosVerifyFunctionWithRequest = KudosVerifyWithRequest | KudosVerifyWithRequestAndParams;

function requireString(options: Record<string, unknown>, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`KudosStrategy requires a "${name}" option (a non-empty string)`);
  }
  return value;
}

function optionalURL(options: Record<string, unknown>, name: string): string | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !URL.canParse(value)) {
    throw new TypeError(`KudosStrategy option "${name}" must be an absolute URL`);
  }
  if (hasCredentials(value)) {
    throw new TypeError(
      `KudosStrategy option "${name}" must not carry credentials (user:password@): the client secret goes in "clientSecret"`,
    );
  }
  return value;
}

function deriveURL(options: Record<string, unknown>, override: string, base: string, path: string): string {
  const full = optionalURL(options, override);
  if (full !== undefined) return full;
  const root = optionalURL(options, base);
  if (root === undefined) {
    throw new TypeError(
      `KudosStrategy requires the "${base}" option (or "${override}"): Kudos has no public default host`,
    );
  }
  return withoutTrailingSlashes(root) + path;
}

/**
 * Joins a scope option into the space-separated form the service expects.
 * @see docs/kudos-service.md#authorization-page ("scopes separated by one space")
 */
function joinScope(scope: unknown): string {
  if (typeof scope === 'string') return scope.trim();
  if (Array.isArray(scope) && scope.every((s) => typeof s === 'string')) return scope.join(' ');
  throw new TypeError('KudosStrategy option "scope" must be a string or an array of strings');
}

/** `customHeaders` checked as node:http would check them when sending, so a bad one fails early. */
function checkHeaders(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObjectLike(value) || Array.isArray(value)) {
    throw new TypeError('KudosStrategy option "customHeaders" must be an object of header names and values');
  }
  const headers: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    const text = Array.isArray(raw) ? raw.join(', ') : typeof raw === 'number' ? String(raw) : raw;
    try {
      if (typeof text !== 'string') throw new TypeError('not a string');
      nodeHttp.validateHeaderName(name);
      nodeHttp.validateHeaderValue(name, text);
    } catch {
      // The value is not repeated: a header may carry a credential.
      throw new TypeError(`KudosStrategy option "customHeaders" has an invalid header "${name}"`);
    }
    headers[name] = text;
  }
  return headers;
}

function checkSkip(value: unknown): KudosSkipUserProfile {
  if (value === undefined) return false;
  if (typeof value === 'boolean' || typeof value === 'function') return value as KudosSkipUserProfile;
  throw new TypeError('KudosStrategy option "skipUserProfile" must be a boolean or a function');
}

/**
 * Checks the options given to `new KudosStrategy()` and applies the defaults.
 * Throws `TypeError` naming the first missing or malformed option.
 */
export function resolveOptions(input: unknown): ResolvedEndpoints {
  if (!isObjectLike(input)) {
    throw new TypeError('KudosStrategy requires an options object');
  }
  const options = input as Record<string, unknown>;
  for (const name of ['clientID', 'clientSecret', 'callbackURL']) requireString(options, name);
  const tokenURL = deriveURL(options, 'tokenURL', 'baseURL', KUDOS_API.token);
  const given = optionalURL(options, 'baseURL');
  const baseURL = given === undefined ? undefined : withoutTrailingSlashes(given);
  const profileURL =
    optionalURL(options, 'profileURL') ?? (baseURL === undefined ? undefined : baseURL + KUDOS_API.profile);
  const fetchProfile = options.fetchProfile ?? false;
  if (typeof fetchProfile !== 'boolean')
    throw new TypeError('KudosStrategy option "fetchProfile" must be a boolean');
  if (fetchProfile && profileURL === undefined) {
    throw new TypeError('KudosStrategy option "fetchProfile" needs the "baseURL" option (or "profileURL")');
  }
  const headers = checkHeaders(options.customHeaders);
  return {
    baseURL,
    authorizationURL: deriveURL(options, 'authorizationURL', 'authURL', KUDOS_PAGES.authorize),
    tokenURL,
    refreshURL: optionalURL(options, 'refreshURL') ?? tokenURL,
    revokeURL: optionalURL(options, 'revokeURL'),
    profileURL,
    scope: joinScope(options.scope ?? DEFAULT_SCOPE),
    request: {
      timeout: checkPositive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'KudosStrategy option "timeoutMs"', {
        unit: 'milliseconds',
      }),
      ...(headers === undefined ? {} : { headers }),
    },
    skipUserProfile: checkSkip(options.skipUserProfile),
    fetchProfile,
  };
}
