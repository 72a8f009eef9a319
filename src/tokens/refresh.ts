import {
  answerError,
  CLIENT_ERROR_WORDS,
  isOk,
  KudosError,
  KudosTokenError,
  request,
  validateRefreshResponse,
} from 'kudos-core';
import { formCall, requestTokens, type TokenEndpointRequest, tracedTokenRequest } from './token-request.js';
import { type KudosTokenSet, readJwtClaims, toTokenSet } from './token-set.js';

/** What refresh and revocation need of a strategy's configuration. */
interface TokenEndpointConfig {
  clientID: string;
  clientSecret: string;
  refreshURL: string;
  revokeURL: string | undefined;
  scope: string;
  /** Time limit and headers (`customHeaders`) of every request to the token endpoint. */
  request: TokenEndpointRequest;
}

function asReauth(error: unknown): unknown {
  if (
    error instanceof KudosTokenError &&
    (error.httpStatus === 400 || error.httpStatus === 401) &&
    !CLIENT_ERROR_WORDS.has(error.code) &&
    error.code !== 'invalid_client' // RFC 6749's word for the same
  ) {
    return new KudosTokenError('reauth_required', {
      message: 'Kudos refused the refresh token: the user must sign in again',
      httpStatus: error.httpStatus,
      cause: error,
    });
  }
  return error;
}

/**
 * Exchanges a refresh token for a new token set (`grant_type=refresh_token`, RFC 6749 section 6).
 * The answer may repeat the refresh token or carry none (the old one is kept), and may lack the
 * user and profile fields the sign-in answer had (docs/kudos-service.md#refresh-and-revocation):
 * the user then comes from the access token's `user` claim or from `previous`, and so does the
 * scope when the token does not say. A refresh token the service refuses yields `KudosTokenError`
 * with code `reauth_required` (status 401).
 */
export async function refreshTokenSet(
  config: TokenEndpointConfig,
  refreshToken: string,
  previous?: KudosTokenSet,
): Promise<KudosTokenSet> {
  if (typeof refreshToken !== 'string' || refreshToken === '') {
    throw new TypeError('refresh() requires the refresh token, a non-empty string');
  }
  const form = {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: config.clientID,
    client_secret: config.clientSecret,
  };
  const response = await tracedTokenRequest('refresh', config.refreshURL, (message) =>
    requestTokens(
      config.refreshURL,
      form,
      { ...config.request, validate: validateRefreshResponse },
      message,
    ).catch((error: unknown) => {
      throw asReauth(error);
    }),
  );
  const user = response.user ?? readJwtClaims(response.access_token).user ?? previous?.user;
  if (user === undefined) {
    throw new KudosTokenError('invalid_token_response', {
      message: 'refresh answer names no user, and no earlier token set was given',
    });
  }
  const tokens = toTokenSet({ ...response, user }, previous?.scope ?? config.scope);
  return tokens.refreshToken ? tokens : { ...tokens, refreshToken };
}

/**
 * Revokes a token at `revokeURL` in the RFC 7009 form (`token`, optional `token_type_hint`, client
 * credentials in the body). The interface shows no revocation endpoint, so there is no default.
 */
export async function revokeAtEndpoint(
  config: TokenEndpointConfig,
  token: string,
  hint?: 'access_token' | 'refresh_token',
): Promise<void> {
  if (!config.revokeURL) {
    throw new KudosError('revoke_url_missing', {
      message:
        'KudosStrategy has no "revokeURL" option: the Kudos interface shows no revocation endpoint, so there is no default',
    });
  }
  if (typeof token !== 'string' || token === '')
    throw new TypeError('revoke() requires the token, a non-empty string');
  const form: Record<string, string> = {
    token,
    client_id: config.clientID,
    client_secret: config.clientSecret,
  };
  if (hint) form.token_type_hint = hint;
  const revokeURL = config.revokeURL;
  await tracedTokenRequest('revoke', revokeURL, async (message) => {
    const call = formCall(revokeURL, form, config.request);
    const answer = await request(call);
    if (message) message.statusCode = answer.status;
    if (!isOk(answer.status)) throw answerError(answer, call);
  });
}
