import { KudosApiError, type KudosProfile, profileFromApi, requestJson } from 'kudos-core';

/** Largest profile answer read (a profile is well under a kilobyte). */
const MAX_PROFILE_BYTES = 64 * 1024;

/**
 * Fetches the full profile at `url` (`GET {baseURL}/users/profile`) with the access token.
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
  const what = `GET ${new URL(request.url).pathname}`;
  const { status, json } = await requestJson({
    service: 'api',
    what,
    url: request.url,
    headers: { accept: 'application/json' },
    accessToken: request.accessToken,
    timeoutMs: request.timeout,
    maxBytes: MAX_PROFILE_BYTES,
  });
  const profile = profileFromApi(json, JSON.stringify(json));
  if (typeof profile === 'string') {
    throw new KudosApiError('invalid_response', { message: profile, httpStatus: status });
  }
  return profile;
}
