// A lookup that answers 404 either does not know what was asked (the service's `Not Found` text, the
// chain's JSON `{"code":5,…}`), or is no longer there at all: a removed route answers its framework's
// own 404 page (the service's API is an Express app: `Cannot GET /tx/…` as HTML). The two must never be
// confused: "nothing found" from a route that is gone would make a shop reconcile nothing forever, and
// "not on the chain yet" from a missing chain proxy would make every notification wait in vain.
import { KudosApiError } from '../base/errors.js';
import { isRecord } from '../base/guards.js';
import type { HttpAnswer } from './http-client.js';

/** Whose "not found" a 404 must be: the service's record lookups, or the chain's REST interface. */
export type NotFoundOf = 'service' | 'chain';

/** Whether a 404 answer is the documented "not found" of `of` (docs/kudos-service.md#chain-lookup). */
export function isDocumentedNotFound(answer: HttpAnswer, of: NotFoundOf): boolean {
  if (answer.status !== 404) return false;
  if (of === 'service') return answer.body.trim() === 'Not Found' && !/html/i.test(answer.contentType);
  try {
    const body: unknown = JSON.parse(answer.body);
    return isRecord(body) && typeof body.code === 'number';
  } catch {
    return false;
  }
}

/** The URL that answered, without its query (no token or cursor in an error). */
export function shownURL(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/**
 * The error of a lookup whose route is gone: `endpoint_gone`, naming the URL that answered and what it
 * answered, with `hint` saying what to do instead.
 */
export function endpointGone(url: string, answer: HttpAnswer, what: string, hint: string): KudosApiError {
  const kind = /html/i.test(answer.contentType) ? 'an HTML page' : `"${answer.contentType || 'no type'}"`;
  return new KudosApiError('endpoint_gone', {
    message: `${what}: ${shownURL(url)} answered 404 with ${kind}, not the documented answer: the route is gone. ${hint}`,
    httpStatus: 404,
  });
}
