import { KudosApiError } from '../base/errors.js';
import { BodyTooLargeError, readCapped } from '../base/read-capped.js';
import { readServiceError } from './service-errors.js';

/** Largest error body read from the API (the service's error bodies are one word). */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/** One call to the API, as its errors name it: `what` (method and path, no query) and its time limit. */
export interface ApiCall {
  what: string;
  /** Milliseconds for the answer and its body. */
  timeout: number;
}

interface ApiRequest extends ApiCall {
  url: string;
  /** The bearer token; none for the service's public operations. */
  accessToken?: string;
  init?: RequestInit;
}

function bodyTimeout({ what, timeout }: ApiCall, status: number, cause: unknown): KudosApiError {
  return new KudosApiError('timeout', status, what, {
    status: 504,
    cause,
    message: `Kudos API did not finish its answer to ${what} within ${timeout} ms`,
  });
}

/** What a failed fetch becomes: the caller's own abort as is, else a KudosApiError. */
function failure(
  cause: unknown,
  deadline: AbortSignal,
  own: AbortSignal | null | undefined,
  request: ApiRequest,
): unknown {
  const { what, timeout } = request;
  if (own?.aborted) return cause;
  if (deadline.aborted) {
    return new KudosApiError('timeout', undefined, what, {
      status: 504,
      cause,
      message: `Kudos API did not answer ${what} within ${timeout} ms`,
    });
  }
  const reason = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  const name =
    reason instanceof Error
      ? 'code' in reason && typeof reason.code === 'string'
        ? reason.code
        : reason.name
      : 'failed';
  return new KudosApiError('network_error', undefined, what, {
    status: 502,
    cause,
    message: `Kudos API could not be reached for ${what} (${name})`,
  });
}

/** Sends one request with the bearer token and a deadline that covers the answer and its body. */
export async function apiRequest(request: ApiRequest): Promise<Response> {
  const { url, timeout, accessToken, init = {} } = request;
  const headers = new Headers(init.headers);
  if (accessToken !== undefined) headers.set('authorization', `Bearer ${accessToken}`);
  const deadline = AbortSignal.timeout(timeout);
  const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
  try {
    return await fetch(url, { ...init, headers, signal });
  } catch (cause) {
    throw failure(cause, deadline, init.signal, request);
  }
}

/** The service's error code of an error answer (docs/kudos-service.md#errors), from at most 1 MiB, or `api_error`. */
export async function apiErrorCode(res: Response, call: ApiCall): Promise<string> {
  try {
    const text = res.body
      ? (await readCapped(res.body, MAX_ERROR_BODY_BYTES, 'truncate')).toString('utf8')
      : '';
    return readServiceError(text)?.code ?? 'api_error';
  } catch (cause) {
    if (cause instanceof DOMException && (cause.name === 'TimeoutError' || cause.name === 'AbortError')) {
      throw bodyTimeout(call, res.status, cause);
    }
    return 'api_error';
  }
}

/** Default largest 2xx answer body the client reads: 4 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

function tooLarge(what: string, status: number, limit: number): KudosApiError {
  return new KudosApiError('response_too_large', status, what, {
    status: 502,
    message: `Kudos API answered ${what} with more than ${limit} bytes`,
  });
}

/**
 * The answer with its body capped at `limit` bytes: a larger `Content-Length` is refused at once,
 * and a body that grows past the cap while it is read errors with `response_too_large`.
 */
export function capResponse(res: Response, what: string, limit: number): Response {
  if (Number(res.headers.get('content-length') ?? 0) > limit) {
    void res.body?.cancel().catch(() => undefined);
    throw tooLarge(what, res.status, limit);
  }
  if (!res.body) return res;
  let seen = 0;
  const counted = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(tooLarge(what, res.status, limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * The JSON of a 2xx answer, read up to `limit` bytes: `response_too_large` past it, `timeout` when
 * its body stalls, `invalid_response` when it is not JSON.
 */
export async function readApiJson(res: Response, call: ApiCall, limit: number): Promise<unknown> {
  const { what } = call;
  let text: string;
  try {
    text = res.body ? (await readCapped(res.body, limit, 'reject')).toString('utf8') : '';
  } catch (cause) {
    if (cause instanceof BodyTooLargeError) throw tooLarge(what, res.status, limit);
    if (cause instanceof KudosApiError) throw cause;
    throw bodyTimeout(call, res.status, cause);
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new KudosApiError('invalid_response', res.status, what, {
      status: 502,
      cause,
      message: `Kudos API answered ${what} with HTTP ${res.status} but not with JSON`,
    });
  }
}
