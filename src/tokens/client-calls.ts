// The calls of an API client (`createKudosClient()`): the user's tokens kept fresh with one refresh at
// a time, the authorized requests, their JSON. Loaded by the client's first call (./client.ts): a
// sign-in never needs it, nor the fetch transport it brings.

import type { ServiceErrorWord } from 'kudos-core';
import {
  answerError,
  type HttpCall,
  jsonOf,
  type KudosApiCallMessage,
  KudosApiError,
  KudosTokenError,
  readResponse,
  requestResponse,
  traced,
  traceURL,
} from 'kudos-core';
import type { ClientCalls, ClientSettings, KudosClientOptions } from './client-types.js';
import { MemoryRefreshLock } from './lock.js';
import type { KudosTokenSet } from './token-set.js';

function reauth(message: string): KudosTokenError {
  return new KudosTokenError('reauth_required', { message });
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

/** The calls of a client made with `options`, whose checked values are `settings`. */
export function clientCalls(options: KudosClientOptions, settings: ClientSettings): ClientCalls {
  const { baseURL: base, timeout, maxResponseBytes } = settings;
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

  return { fetch: authorizedFetch, json, tokenSet };
}
