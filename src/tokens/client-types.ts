// The API client's shapes: what createKudosClient() (client.ts) takes and answers, and what its
// calls (client-calls.ts, loaded at the first one) are handed. A file of their own, so that the two
// import it and not each other.
import type { KudosRefreshLock } from './lock.js';
import type { KudosTokenStore } from './store.js';
import type { KudosTokenSet } from './token-set.js';

/** What the client needs of a strategy: a way to refresh, and the API's address. `KudosStrategy` has both. */
export interface KudosRefresher {
  /** Refreshes; `previous` is the token set being replaced (its user and scope are kept when the answer lacks them). */
  refresh(refreshToken: string, previous?: KudosTokenSet): Promise<KudosTokenSet>;
  /** `{baseURL}` of the API, used when the client is given no `baseURL`. */
  readonly baseURL?: string | undefined;
}

/** Options of {@link createKudosClient}. */
export interface KudosClientOptions {
  /** The strategy (or anything with `refresh(refreshToken)`). */
  strategy: KudosRefresher;
  /** Where each user's token set is kept; every new set is stored here before it is used. */
  tokens: KudosTokenStore;
  /** `{baseURL}` of the Kudos API; request paths are relative to it. Default: the strategy's `baseURL`. */
  baseURL?: string;
  /**
   * Time limit of each call in milliseconds, from the request until its body is read (default 10000).
   * Then the call rejects with `KudosApiError` `timeout` (504); a body still being read is cut off.
   */
  timeoutMs?: number;
  /**
   * Largest 2xx answer body read, in bytes (default 4 MiB): `client.json()` rejects past it, and the
   * body of a `client.fetch()` answer errors when read past it, with `KudosApiError`
   * `response_too_large` (502).
   */
  maxResponseBytes?: number;
  /** Lock around each user's refresh; default in-process. Use a shared one for several instances. */
  lock?: KudosRefreshLock;
  /** Refresh this long before the access token expires; default 60000 ms. */
  refreshBeforeMs?: number;
  /** Longest time a refresh lock is held; default 30000 ms. */
  lockTtlMs?: number;
  /** Clock, epoch milliseconds; default `Date.now`. */
  now?: () => number;
}

/** Authenticated calls to the Kudos API on behalf of a user. */
export interface KudosClient {
  /**
   * Calls `{baseURL}{path}` with the user's bearer token, refreshing it first when it is about to
   * expire, or once after a 401 `TOKEN_EXPIRED`. Resolves with the 2xx response; rejects with
   * `KudosApiError` (the service's status and code, `timeout` or `network_error`) otherwise, or
   * `KudosTokenError` `reauth_required` when the user must sign in again. A request body must be
   * replayable. The `timeout` covers reading the body too.
   */
  fetch(userId: string, path: string, init?: RequestInit): Promise<Response>;
  /**
   * `fetch` and parse the JSON answer; a 2xx answer that is not JSON rejects with `invalid_response`
   * (502). The answer is the service's, unchecked: `unknown` until your code narrows it.
   */
  json(userId: string, path: string, init?: RequestInit): Promise<unknown>;
  /**
   * The same, checked by `guard`: an answer the guard refuses rejects with `invalid_response` (502),
   * so the promise's type is one the answer was seen to have.
   */
  json<T>(
    userId: string,
    path: string,
    guard: (value: unknown) => value is T,
    init?: RequestInit,
  ): Promise<T>;
  /** The user's current token set, refreshed first when it is about to expire. */
  tokenSet(userId: string): Promise<KudosTokenSet>;
}

/**
 * A client's options as checked when it is made.
 *
 * @internal
 */
export interface ClientSettings {
  baseURL: string;
  timeout: number;
  maxResponseBytes: number;
}

/**
 * A client's calls (./client-calls.ts) as createKudosClient() forwards them: `json` takes its
 * arguments as they were given (a guard or a request init third) and sorts them out itself.
 *
 * @internal
 */
export interface ClientCalls extends Omit<KudosClient, 'json'> {
  json(
    userId: string,
    path: string,
    guardOrInit?: ((value: unknown) => boolean) | RequestInit,
    maybeInit?: RequestInit,
  ): Promise<unknown>;
}
