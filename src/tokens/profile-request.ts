import { KudosApiError } from '../base/errors.js';
import { apiErrorCode, apiRequest, readApiJson } from '../protocol/api-call.js';
import { type KudosProfile, profileFromApi } from '../protocol/profile.js';

/** Largest profile answer read (a profile is well under a kilobyte). */
const MAX_PROFILE_BYTES = 64 * 1024;

/**
 * Fetches the full profile at `url` (`GET {base_url}/users/profile`) with the access token.
 * Rejects with `KudosApiError`: the service's code (`LOGIN_NEEDED`, `INSUFFICIENT_PERMISSION`, ...),
 * `timeout`, `network_error`, `response_too_large`, or `invalid_response` naming the field when the
 * answer is not a profile.
 *
 * @see docs/kudos-service.md#authenticated-api
 */
export async function requestProfile(request: {
  url: string;
  accessToken: string;
  timeout: number;
}): Promise<KudosProfile> {
  const call = { what: `GET ${new URL(request.url).pathname}`, timeout: request.timeout };
  const { what } = call;
  const res = await apiRequest({ ...request, ...call });
  if (!res.ok) throw new KudosApiError(await apiErrorCode(res, call), res.status, what);
  const json = await readApiJson(res, call, MAX_PROFILE_BYTES);
  const profile = profileFromApi(json, JSON.stringify(json));
  if (typeof profile === 'string') {
    throw new KudosApiError('invalid_response', res.status, what, { status: 502, message: profile });
  }
  return profile;
}
