import nock from 'nock';

/**
 * Intercepts `times` POSTs to `origin` + `path` with nock, answers each with `answer` (a token
 * response), and keeps each form posted, decoded, in `forms` (oldest first). Only a form-encoded
 * body matches, as RFC 6749 section 4.1.3 asks.
 */
export function captureTokenForms(
  origin: string,
  answer: object,
  { path = '/oauth/access_token', times = 1 }: { path?: string; times?: number } = {},
): { forms: Array<Record<string, string>>; scope: nock.Scope } {
  const forms: Array<Record<string, string>> = [];
  const scope = nock(origin)
    .post(path, (body: string | Record<string, string>) => {
      forms.push(typeof body === 'string' ? Object.fromEntries(new URLSearchParams(body)) : body);
      return true;
    })
    .matchHeader('content-type', /^application\/x-www-form-urlencoded\b/)
    .times(times)
    .reply(200, answer);
  return { forms, scope };
}
