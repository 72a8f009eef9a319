import { KudosApiError, KudosTokenError } from '../base/errors.js';
import { checkPositive } from '../base/numbers.js';
import { type KudosApiCallMessage, traced, traceURL } from '../base/trace.js';
import { hasCredentials, withoutTrailingSlashes } from '../base/url-path.js';
import {
  answerError,
  DEFAULT_MAX_RESPONSE_BYTES,
  type HttpCall,
  jsonOf,
  readResponse,
  requestResponse,
} from '../protocol/http-client.js';
import { DEFAULT_TIMEOUT_MS } from '../protocol/limits.js';
import type { ServiceErrorWord } from '../protocol/service-errors.js';
import { type KudosRefreshLock, MemoryRefreshLock } from './lock.js';
import type { KudosTokenStore } from './store.js';
import type { KudosTokenSet } from './token-set.js';

/** What the client needs of a strategy: a way to refresh, and the API's address. `KudosStrategy` has both. */
export interface KudosRefresher {
  /** Refreshes; `previous` is the token set being replaced (its user and scope are kept when the answer lacks them). */
  refresh(refreshToken: string, previous?: KudosTokenSet): Promise<KudosTokenSet>;
  /** `{base_url}` of the API, used when the client is given no `baseURL`. */
  readonly baseURL?: string | undefined;
}

/** Options of {@link createKudosClient}. */
export interface KudosClientOptions {
  /** The strategy (or anything with `refresh(refreshToken)`). */
  strategy: KudosRefresher;
  /** Where each user's token set is kept; every new set is stored here before it is used. */
  tokens: KudosTokenStore;
  /** `{base_url}` of the Kudos API; request paths are relative to it. Default: the strategy's `baseURL`. */
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

function reauth(message: string): KudosTokenError {
  return new KudosTokenError('reauth_required', { message });
}

function checkClientOptions(options: KudosClientOptions): {
  baseURL: string;
  timeout: number;
  maxResponseBytes: number;
} {
  if (typeof options?.strategy?.refresh !== 'function') {
    throw new TypeError('createKudosClient requires "strategy" (a KudosStrategy)');
  }
  if (typeof options.tokens?.get !== 'function' || typeof options.tokens.set !== 'function') {
    throw new TypeError(
      'createKudosClient requires "tokens", a store with get(userId) and set(userId, tokenSet)',
    );
  }
  const baseURL = options.baseURL ?? options.strategy.baseURL;
  if (typeof baseURL !== 'string' || !URL.canParse(baseURL) || hasCredentials(baseURL)) {
    throw new TypeError(
      'createKudosClient requires "baseURL", an absolute URL without credentials (or a strategy created with the "baseURL" option)',
    );
  }
  const timeout = checkPositive(
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    'createKudosClient option "timeoutMs"',
    {
      unit: 'milliseconds',
    },
  );
  const maxResponseBytes = checkPositive(
    options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    'createKudosClient option "maxResponseBytes"',
    { whole: true, unit: 'bytes' },
  );
  return { baseURL: withoutTrailingSlashes(baseURL), timeout, maxResponseBytes };
}

/**
 * The refresh of one user's tokens, once at a time: concurrent callers share one refresh (single
 * flight), which runs under the lock after reading the store again, so that one refresh token is
 * spent once even across processes.
 */
function singleFlightRefresh(
  options: KudosClientOptions,
  lockTtl: number,
  fresh: (set: KudosTokenSet) => boolean,
): (userId: string, stale: KudosTokenSet) => Promise<KudosTokenSet> {
  const { strategy, tokens } = options;
  const lock = options.lock ?? new MemoryRefreshLock();
  const inflight = new Map<string, Promise<KudosTokenSet>>();
  return (userId, stale) => {
    const running = inflight.get(userId);
    if (running) return running;
    const refreshing = lock
      .withLock(`kudos:refresh:${userId}`, lockTtl, async () => {
        // Another caller (or process) may have refreshed while we waited: use its tokens.
        const latest = await tokens.get(userId);
        if (latest && latest.accessToken !== stale.accessToken && fresh(latest)) return latest;
        const refreshToken = (latest ?? stale).refreshToken;
        if (!refreshToken) throw reauth('no refresh token is stored for this user: sign in again');
        const next = await strategy.refresh(refreshToken, latest ?? stale);
        await tokens.set(userId, next); // persisted before use: the old refresh token is dead now
        return next;
      })
      .finally(() => inflight.delete(userId));
    inflight.set(userId, refreshing);
    return refreshing;
  };
}

/**
 * Creates a client that calls the Kudos API for your users and keeps their tokens alive.
 * Concurrent calls for the same user share one refresh (single flight), and the refresh runs
 * under `lock`, re-reading the store first, so one refresh token is spent once even across
 * processes (docs/kudos-service.md#limits rule a).
 */
export function createKudosClient(options: KudosClientOptions): KudosClient {
  const { baseURL: base, timeout, maxResponseBytes } = checkClientOptions(options);
  const { tokens } = options;
  const early = options.refreshBeforeMs ?? 60_000;
  const now = options.now ?? Date.now;
  const fresh = (set: KudosTokenSet) => set.expiresAt - early > now();
  const refreshFor = singleFlightRefresh(options, options.lockTtlMs ?? 30_000, fresh);

  async function tokenSet(userId: string): Promise<KudosTokenSet> {
    const set = await tokens.get(userId);
    if (!set) throw reauth('no tokens are stored for this user: sign in first');
    return fresh(set) ? set : refreshFor(userId, set);
  }

  async function authorizedFetch(userId: string, path: string, init: RequestInit = {}): Promise<Response> {
    if (URL.canParse(path)) throw new TypeError('client.fetch() takes a path relative to baseURL, not a URL');
    const method = init.method ?? 'GET';
    const url = urlOf(path);
    const route = path.split('?')[0] ?? '';
    return traced(
      'api',
      () => ({ operation: 'api', method, path: route, url: traceURL(url) }),
      async (message) => {
        const res = await callApi(userId, url, `${method} ${route}`, init, message);
        if (message) message.outcome = 'success';
        return res;
      },
    );
  }

  /** `{baseURL}{path}`, a path relative to the API's base. */
  const urlOf = (path: string) => `${base}${path.startsWith('/') ? path : `/${path}`}`;

  /** The HTTP client's call of `what` at `url`, with a user's access token when it is sent. */
  function apiCall(url: string, what: string, accessToken?: string): HttpCall {
    return { service: 'api', what, url, accessToken, timeoutMs: timeout, maxBytes: maxResponseBytes };
  }

  /** One API call: the request, and once more after a refresh when the token expired. */
  async function callApi(
    userId: string,
    url: string,
    what: string,
    init: RequestInit,
    message: KudosApiCallMessage | undefined,
  ): Promise<Response> {
    const attempt = async (set: KudosTokenSet) => {
      const call = apiCall(url, what, set.accessToken);
      const res = await requestResponse(call, init);
      if (message) message.statusCode = res.status;
      return res.ok ? res : answerError(await readResponse(res, call), call);
    };
    const set = await tokenSet(userId);
    const first = await attempt(set);
    if (first instanceof Response) return first;
    if (first.httpStatus !== 401 || first.code !== ('TOKEN_EXPIRED' satisfies ServiceErrorWord)) throw first;
    const second = await attempt(await refreshFor(userId, set));
    if (second instanceof Response) return second;
    throw second;
  }

  async function json(
    userId: string,
    path: string,
    guardOrInit?: ((value: unknown) => boolean) | RequestInit,
    maybeInit?: RequestInit,
  ): Promise<unknown> {
    const guard = typeof guardOrInit === 'function' ? guardOrInit : undefined;
    const init = typeof guardOrInit === 'function' ? maybeInit : guardOrInit;
    const what = `${init?.method ?? 'GET'} ${path.split('?')[0]}`;
    const res = await authorizedFetch(userId, path, init);
    const call = apiCall(urlOf(path), what);
    const value: unknown = jsonOf(await readResponse(res, call), call);
    if (guard && !guard(value)) {
      throw new KudosApiError('invalid_response', {
        message: `Kudos API answered ${what} with JSON of another shape than the guard expects`,
        httpStatus: res.status,
      });
    }
    return value;
  }

  return { fetch: authorizedFetch, json: json as KudosClient['json'], tokenSet };
}
