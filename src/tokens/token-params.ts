import type { KudosTokenResponse } from 'kudos-core';
import { ACCESS_TOKEN_LIFETIME_S } from 'kudos-core';
import type { KudosTokenSet } from './token-set.js';

/**
 * `params` handed to a verify function of arity 5 (6 with the request): the token response,
 * plus `expires_in: 3600` when the service sent none (the access token lives one hour, docs/kudos-service.md#limits),
 * and `tokenSet` (not enumerable) ready to store.
 */
export interface KudosTokenParams extends KudosTokenResponse {
  expires_in: number;
  /** The token set to store for this user (see "Keeping users signed in"). Not enumerable. */
  readonly tokenSet: KudosTokenSet;
}

/**
 * Adds the one-hour `expires_in` of docs/kudos-service.md#limits when the service did not send one, and the token
 * set as a non-enumerable `tokenSet` (so that serializing `params` does not copy the tokens twice),
 * made when first read: a verify function that never reads it (most take no `params`) costs no JWT
 * decoding on the login's path.
 */
export function toTokenParams(response: KudosTokenResponse, tokenSet: () => KudosTokenSet): KudosTokenParams {
  const expiresIn = typeof response.expires_in === 'number' ? response.expires_in : ACCESS_TOKEN_LIFETIME_S;
  const params = { ...response, expires_in: expiresIn };
  let made: KudosTokenSet | undefined;
  Object.defineProperty(params, 'tokenSet', {
    get: () => {
      made ??= tokenSet();
      return made;
    },
    enumerable: false,
  });
  return params as KudosTokenParams;
}
