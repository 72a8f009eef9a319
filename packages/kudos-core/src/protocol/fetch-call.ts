// The fetch transport of the HTTP client (./http-client.ts), for `client.fetch()`: it promises a Fetch
// `Response` with fetch's own behaviour (redirects, decoding, `RequestInit`, the caller's `signal`),
// under the client's rules (time limit, size cap, errors that name no secret). Loaded with the API
// client, when it is first used.

import { KudosApiError, KudosTokenError } from '../base/errors.js';
import { BodyTooLargeError, readCapped } from '../base/read-capped.js';
import { failure, type HttpAnswer, type HttpCall, headersOf, readLimit } from './http-client.js';

/** Most redirects followed for one call. */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * fetch, following redirects only within the call's origin (a redirect elsewhere would hand the API's
 * answer, or the request's body, to another site): one to another origin is `redirect` (an
 * `invalid_response`), and so is a 307 or 308 that would send a body that cannot be sent twice. A
 * caller's own `redirect: 'manual'` or `'error'` is fetch's.
 */
async function fetchFollowing(call: HttpCall, init: RequestInit): Promise<Response> {
  if (init.redirect === 'manual' || init.redirect === 'error') return fetch(call.url, init);
  let url = call.url;
  let next: RequestInit = { ...init, redirect: 'manual' };
  for (let hops = 0; ; hops++) {
    const res = await fetch(url, next);
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || location === null) return res;
    void res.body?.cancel().catch(() => undefined);
    const target = URL.canParse(location, url) ? new URL(location, url) : undefined;
    const keepsBody = res.status === 307 || res.status === 308;
    const resends = keepsBody && next.body !== undefined && next.body !== null;
    if (
      hops >= MAX_REDIRECTS ||
      target?.origin !== new URL(url).origin ||
      (resends && next.body instanceof ReadableStream)
    ) {
      throw failure(call, 'redirect', { httpStatus: res.status });
    }
    url = target.href;
    // 301 and 302 after a POST, and 303 always, go on as a GET without a body (as fetch does).
    if (!keepsBody && (res.status === 303 || (next.method ?? 'GET').toUpperCase() === 'POST')) {
      const { body: _body, ...rest } = next;
      next = { ...rest, method: 'GET' };
    }
  }
}

/**
 * Sends one request with fetch and answers its `Response` once the headers are in; the deadline
 * goes on covering the body, which (for a 2xx answer) errors with `response_too_large` past
 * `maxBytes` (a larger `Content-Length` is refused at once). The caller's own abort rejects as
 * fetch rejects it.
 */
export async function requestResponse(call: HttpCall, init: RequestInit = {}): Promise<Response> {
  const deadline = AbortSignal.timeout(call.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(headersOf(call))) headers.set(name, value);
  let res: Response;
  try {
    res = await fetchFollowing(call, { ...init, headers, signal });
  } catch (cause) {
    if (init.signal?.aborted || cause instanceof KudosApiError || cause instanceof KudosTokenError)
      throw cause;
    throw failure(call, deadline.aborted ? 'timeout' : 'network_error', { cause });
  }
  // Only a 2xx body is the caller's to read; an error's is read by readResponse, for its code.
  if (!res.ok) return res;
  if (Number(res.headers.get('content-length') ?? 0) > call.maxBytes) {
    void res.body?.cancel().catch(() => undefined);
    throw failure(call, 'too_large', { httpStatus: res.status });
  }
  if (!res.body) return res;
  let seen = 0;
  const counted = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > call.maxBytes) controller.error(failure(call, 'too_large', { httpStatus: res.status }));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** Reads a `Response` of {@link requestResponse} as {@link request} reads an answer, with the same errors. */
export async function readResponse(res: Response, call: HttpCall): Promise<HttpAnswer> {
  let body = '';
  try {
    const { limit, overflow } = readLimit(call, res.status);
    if (res.body) body = (await readCapped(res.body, limit, overflow)).toString('utf8');
  } catch (cause) {
    if (cause instanceof KudosApiError || cause instanceof KudosTokenError) throw cause;
    if (cause instanceof BodyTooLargeError)
      throw failure(call, 'too_large', { cause, httpStatus: res.status });
    throw failure(call, 'body_timeout', { cause, httpStatus: res.status });
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
}
