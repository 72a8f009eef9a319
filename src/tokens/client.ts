import { KudosApiError, KudosTokenError } from '../errors.js';
import { type KudosRefreshLock, MemoryRefreshLock } from './lock.js';
import type { KudosTokenStore } from './store.js';
import type { KudosTokenSet } from './token-set.js';

/** What the client needs of a strategy: a way to refresh. `KudosStrategy` has it. */
export interface KudosRefresher {
  refresh(refreshToken: string): Promise<KudosTokenSet>;
}

/** Options of {@link createKudosClient}. */
export interface KudosClientOptions {
  /** The strategy (or anything with `refresh(refreshToken)`). */
  strategy: KudosRefresher;
  /** Where each user's token set is kept; every new set is stored here before it is used. */
  tokens: KudosTokenStore;
  /** `{base_url}` of the Kudos API; request paths are relative to it. */
  baseURL: string;
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
   * `KudosApiError` (the service's status and code) otherwise, or `KudosTokenError`
   * `reauth_required` when the user must sign in again. A request body must be replayable.
   */
  fetch(userId: string, path: string, init?: RequestInit): Promise<Response>;
  /** `fetch` and parse the JSON answer. */
  json<T = unknown>(userId: string, path: string, init?: RequestInit): Promise<T>;
  /** The user's current token set, refreshed first when it is about to expire. */
  tokenSet(userId: string): Promise<KudosTokenSet>;
}

function reauth(message: string): KudosTokenError {
  return new KudosTokenError(message, { code: 'reauth_required', status: 401 });
}

/** Reads the service's plain-text error code (facts.md), or `api_error`. */
async function errorCode(res: Response): Promise<string> {
  const text = (await res.text().catch(() => '')).trim();
  if (/^[A-Z][A-Z0-9_]{1,63}$/.test(text)) return text;
  try {
    const json: unknown = JSON.parse(text);
    if (typeof json === 'object' && json !== null && 'error' in json && typeof json.error === 'string') {
      return /^[\w.-]{1,64}$/.test(json.error) ? json.error : 'api_error';
    }
  } catch {
    // not JSON: no code
  }
  return 'api_error';
}

/**
 * Creates a client that calls the Kudos API for your users and keeps their tokens alive.
 * Concurrent calls for the same user share one refresh (single flight), and the refresh runs
 * under `lock`, re-reading the store first, so one refresh token is spent once even across
 * processes (section 8 rule a).
 */
export function createKudosClient(options: KudosClientOptions): KudosClient {
  if (typeof options?.strategy?.refresh !== 'function') {
    throw new TypeError('createKudosClient requires "strategy" (a KudosStrategy)');
  }
  if (typeof options.tokens?.get !== 'function' || typeof options.tokens.set !== 'function') {
    throw new TypeError(
      'createKudosClient requires "tokens", a store with get(userId) and set(userId, tokenSet)',
    );
  }
  if (typeof options.baseURL !== 'string' || !URL.canParse(options.baseURL)) {
    throw new TypeError('createKudosClient requires "baseURL", an absolute URL');
  }
  const { strategy, tokens } = options;
  const base = options.baseURL.replace(/\/+$/, '');
  const lock = options.lock ?? new MemoryRefreshLock();
  const early = options.refreshBeforeMs ?? 60_000;
  const lockTtl = options.lockTtlMs ?? 30_000;
  const now = options.now ?? Date.now;
  const inflight = new Map<string, Promise<KudosTokenSet>>();
  const fresh = (set: KudosTokenSet) => set.expiresAt - early > now();

  function refreshFor(userId: string, stale: KudosTokenSet): Promise<KudosTokenSet> {
    const running = inflight.get(userId);
    if (running) return running;
    const refreshing = lock
      .withLock(`kudos:refresh:${userId}`, lockTtl, async () => {
        // Another caller (or process) may have refreshed while we waited: use its tokens.
        const latest = await tokens.get(userId);
        if (latest && latest.accessToken !== stale.accessToken && fresh(latest)) return latest;
        const refreshToken = (latest ?? stale).refreshToken;
        if (!refreshToken) throw reauth('no refresh token is stored for this user: sign in again');
        const next = await strategy.refresh(refreshToken);
        await tokens.set(userId, next); // persisted before use: the old refresh token is dead now
        return next;
      })
      .finally(() => inflight.delete(userId));
    inflight.set(userId, refreshing);
    return refreshing;
  }

  async function tokenSet(userId: string): Promise<KudosTokenSet> {
    const set = await tokens.get(userId);
    if (!set) throw reauth('no tokens are stored for this user: sign in first');
    return fresh(set) ? set : refreshFor(userId, set);
  }

  function call(set: KudosTokenSet, path: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${set.accessToken}`);
    return fetch(`${base}${path.startsWith('/') ? path : `/${path}`}`, { ...init, headers });
  }

  async function authorizedFetch(userId: string, path: string, init: RequestInit = {}): Promise<Response> {
    if (URL.canParse(path)) throw new TypeError('client.fetch() takes a path relative to baseURL, not a URL');
    const what = `${init.method ?? 'GET'} ${path}`;
    let set = await tokenSet(userId);
    let res = await call(set, path, init);
    if (res.ok) return res;
    let code = await errorCode(res);
    if (res.status === 401 && code === 'TOKEN_EXPIRED') {
      set = await refreshFor(userId, set);
      res = await call(set, path, init);
      if (res.ok) return res;
      code = await errorCode(res);
    }
    throw new KudosApiError(code, res.status, what);
  }

  return {
    fetch: authorizedFetch,
    async json<T>(userId: string, path: string, init?: RequestInit): Promise<T> {
      const res = await authorizedFetch(userId, path, init);
      return (await res.json()) as T;
    },
    tokenSet,
  };
}
