import { KudosApiError } from '../errors.js';
import { type KudosProfile, profileFromApi } from '../profile.js';
import { BodyTooLargeError, readCapped } from '../read-capped.js';
import { apiErrorCode, apiRequest } from './api-call.js';

/** Largest profile answer read (a profile is well under a kilobyte). */
const MAX_PROFILE_BYTES = 64 * 1024;

/**
 * Fetches the full profile at `profileURL` (`GET {base_url}/users/profile`) with the access token.
 * Rejects with `KudosApiError`: the service's code (`LOGIN_NEEDED`, `INSUFFICIENT_PERMISSION`, ...),
 * `timeout`, `network_error`, or `invalid_response` naming the field when the answer is not a profile.
 *
 * @see docs/kudos-service.md#authenticated-api
 */
export async function requestProfile(
  profileURL: string,
  accessToken: string,
  timeout: number,
): Promise<KudosProfile> {
  const what = `GET ${new URL(profileURL).pathname}`;
  const res = await apiRequest({ url: profileURL, timeout, accessToken, init: {}, what });
  if (!res.ok) throw new KudosApiError(await apiErrorCode(res, what, timeout), res.status, what);
  const invalid = (message: string, cause?: unknown) =>
    new KudosApiError('invalid_response', res.status, what, { status: 502, cause, message });
  let raw: string;
  try {
    raw = res.body ? (await readCapped(res.body, MAX_PROFILE_BYTES, 'reject')).toString('utf8') : '';
  } catch (cause) {
    if (cause instanceof BodyTooLargeError) {
      throw invalid(`Kudos API answered ${what} with more than ${MAX_PROFILE_BYTES} bytes`, cause);
    }
    if (cause instanceof DOMException && (cause.name === 'TimeoutError' || cause.name === 'AbortError')) {
      throw new KudosApiError('timeout', res.status, what, {
        status: 504,
        cause,
        message: `Kudos API did not finish its answer to ${what} within ${timeout} ms`,
      });
    }
    throw new KudosApiError('network_error', res.status, what, {
      status: 502,
      cause,
      message: `Kudos API's answer to ${what} was cut off`,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (cause) {
    throw invalid(`Kudos API answered ${what} with HTTP ${res.status} but not with JSON`, cause);
  }
  const profile = profileFromApi(json, raw);
  if (typeof profile === 'string') throw invalid(profile);
  return profile;
}
