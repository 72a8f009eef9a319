/**
 * passport-kudos: sign in with Kudos through Passport.
 *
 * @example
 * import { KudosStrategy } from 'passport-kudos';
 * passport.use(new KudosStrategy({ clientID, clientSecret, callbackURL, authURL, baseURL }, verify));
 *
 * @packageDocumentation
 */
export { CODE_PARAMS } from './callback/params.js';
export {
  KudosApiError,
  KudosAuthorizationError,
  KudosError,
  type KudosErrorOptions,
  KudosTokenError,
  type KudosTokenErrorOptions,
} from './errors.js';
export {
  DEFAULT_SCOPE,
  DEFAULT_TIMEOUT_MS,
  type KudosStrategyOptions,
  type KudosStrategyOptionsBase,
  type KudosStrategyOptionsWithRequest,
  type KudosVerify,
  type KudosVerifyCallback,
  type KudosVerifyFunction,
  type KudosVerifyFunctionWithRequest,
  type KudosVerifyWithParams,
  type KudosVerifyWithRequest,
  type KudosVerifyWithRequestAndParams,
} from './options.js';
export { type KudosProfile, type KudosProfileJson, parseProfile } from './profile.js';
export {
  hasScope,
  KNOWN_KUDOS_SCOPES,
  type KnownKudosScope,
  KUDOS_SCOPE_DESCRIPTIONS,
  type KudosScope,
  scopeCovers,
} from './scopes.js';
export {
  DENIED_MESSAGE,
  type KudosAuthenticateOptions,
  KudosStrategy,
  KudosStrategy as Strategy,
} from './strategy.js';
export {
  ACCESS_TOKEN_LIFETIME_S,
  type KudosTokenParams,
  type KudosTokenResponse,
  validateTokenResponse,
} from './token-response.js';
export {
  createKudosClient,
  type KudosClient,
  type KudosClientOptions,
  type KudosRefresher,
} from './tokens/client.js';
export { type KudosRefreshLock, MemoryRefreshLock } from './tokens/lock.js';
export { type KudosTokenStore, MemoryTokenStore } from './tokens/store.js';
export { type KudosTokenSet, type ReadableClaims, readJwtClaims, toTokenSet } from './tokens/token-set.js';
