/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * passport-kudos: sign in with Kudos through Passport.
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
 *
 * @packageDocumentation
 */
// The channels' names and messages (each message type is also exported by passport-kudos/otel).
export {
  hasScope,
  isCodeOf,
  KNOWN_KUDOS_SCOPES,
  type KnownKudosScope,
  KUDOS_ERROR_CODES,
  KUDOS_TRACE_CHANNELS,
  KudosApiError,
  type KudosApiErrorOptions,
  KudosAuthorizationError,
  type KudosAuthorizationErrorOptions,
  KudosError,
  type KudosErrorClassName,
  type KudosErrorCode,
  type KudosErrorCodeInfo,
  type KudosErrorCodeOf,
  type KudosErrorOptions,
  type KudosProfile,
  type KudosProfileJson,
  type KudosScope,
  KudosTokenError,
  type KudosTokenErrorOptions,
  type KudosTokenResponse,
  type KudosTraceMessages,
  type KudosTraceOperation,
  parseProfile,
  scopeCovers,
  validateTokenResponse,
} from 'kudos-core';
export {
  type KudosCookieStateRequest,
  KudosCookieStateStore,
  type KudosCookieStateStoreOptions,
  type KudosStateStore,
  type KudosUsedStates,
  MAX_PENDING_SIGN_INS,
} from './strategy/cookie-state-store.js';
export type {
  KudosStrategyOptions,
  KudosStrategyOptionsBase,
  KudosStrategyOptionsWithRequest,
  KudosVerify,
  KudosVerifyCallback,
  KudosVerifyFunction,
  KudosVerifyFunctionWithRequest,
  KudosVerifyWithParams,
  KudosVerifyWithRequest,
  KudosVerifyWithRequestAndParams,
} from './strategy/options.js';
export {
  DENIED_MESSAGE,
  type KudosAuthenticateOptions,
  KudosStrategy,
  KudosStrategy as Strategy,
} from './strategy/strategy.js';
export {
  createKudosClient,
  type KudosClient,
  type KudosClientOptions,
  type KudosRefresher,
} from './tokens/client.js';
export { type KudosRefreshLock, MemoryRefreshLock } from './tokens/lock.js';
export { type KudosTokenStore, MemoryTokenStore } from './tokens/store.js';
export type { KudosTokenParams } from './tokens/token-params.js';
export { type KudosTokenSet, type ReadableClaims, readJwtClaims, toTokenSet } from './tokens/token-set.js';
