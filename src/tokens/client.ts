import {
  checkPositive,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  hasCredentials,
  withoutTrailingSlashes,
} from 'kudos-core';
import type { ClientCalls, ClientSettings, KudosClient, KudosClientOptions } from './client-types.js';

export type { KudosClient, KudosClientOptions, KudosRefresher } from './client-types.js';

function checkClientOptions(options: KudosClientOptions): ClientSettings {
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
 * Creates a client that calls the Kudos API for your users and keeps their tokens alive.
 * Concurrent calls for the same user share one refresh (single flight), and the refresh runs
 * under `lock`, re-reading the store first, so one refresh token is spent once even across
 * processes (docs/kudos-service.md#limits rule a).
 */
export function createKudosClient(options: KudosClientOptions): KudosClient {
  const settings = checkClientOptions(options);
  // The options as they are now: the calls read them later, and a caller may change its object.
  const given = { ...options };
  // The calls themselves are loaded by the first one (with the fetch transport they use): an app
  // that only signs users in never compiles them (see bench/notes.md, cold start).
  let calls: Promise<ClientCalls> | undefined;
  const load = (): Promise<ClientCalls> =>
    (calls ??= import('./client-calls.js').then((module) => module.clientCalls(given, settings)));
  const json: ClientCalls['json'] = (userId, path, guardOrInit, init) =>
    load().then((client) => client.json(userId, path, guardOrInit, init));
  return {
    fetch: (userId, path, init) => load().then((client) => client.fetch(userId, path, init)),
    json: json as KudosClient['json'],
    tokenSet: (userId) => load().then((client) => client.tokenSet(userId)),
  };
}
