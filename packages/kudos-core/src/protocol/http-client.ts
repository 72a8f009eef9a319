// The one HTTP client of the Kudos packages: every request to the service (the token endpoint, the API,
// the chain lookup, reconcile's lookups) goes through here, so each has the same time limit, size
// cap, JSON parsing, error mapping and redaction. Two transports, one set of rules: node:http with
// keep-alive for answers read whole (a token request is about 1.6x faster than with fetch on Node
// 20, and a login callback's time is this package's to choose), and fetch for `client.fetch()`
// (./fetch-call.ts, loaded with the API client: a sign-in never needs it), which promises a Fetch
// `Response` with fetch's own behaviour (redirects, decoding, `RequestInit`, the caller's `signal`).
import type { Agent } from 'node:http';
import { isCodeOf, type KudosErrorCodeOf } from '../base/error-codes.js';
import { cleanText, KudosApiError, KudosTokenError } from '../base/errors.js';
import { BodyTooLargeError, readStream } from '../base/read-capped.js';
import { redactSecrets } from '../base/redact.js';
import { codeOfWord, readServiceError } from './service-errors.js';

/** Who answers: the token endpoint (`KudosTokenError`) or the API, chain lookup included (`KudosApiError`). */
type KudosService = 'token' | 'api';

/** One request, as its errors name it. */
export interface HttpCall {
  service: KudosService;
  /** What errors call it: the method and path (no query), or the token endpoint's origin. */
  what: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Readonly<Record<string, string>>;
  /** A bearer token: sent as `Authorization: Bearer ...`, and never in an error (as `secrets`). */
  accessToken?: string | undefined;
  /**
   * The body, as text: node:http then sends it in one write with the headers (a Buffer is a second
   * chunk, written with writev: measured at about 25 µs more per token request under load).
   */
  body?: string;
  /** Milliseconds for the answer and its whole body. */
  timeoutMs: number;
  /** Largest body read, in bytes. */
  maxBytes: number;
  /** Values sent that never come back out in an error, in any encoding (client secret, codes, tokens). */
  secrets?: readonly string[];
}

/** An answer read whole. */
export interface HttpAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Default largest 2xx answer body the API client reads: 4 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * Most of an error answer read: it is read for its code (one word, or OAuth's JSON), so its first
 * bytes are enough, and a 200 MiB error page is never read whole.
 */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/** Whether an answer's status is a success (2xx). */
export function isOk(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** What a header can carry of a token: visible ASCII (the token response refuses anything else). */
const HEADER_TOKEN = /^[\x21-\x7E]+$/;

/**
 * The headers a call sends: its own, and its bearer token's. A stored token that a header cannot
 * carry (a newline) is `reauth_required`: the request would fail with an error that quotes it.
 */
export function headersOf(call: HttpCall): Record<string, string> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.accessToken === undefined) return headers;
  if (!HEADER_TOKEN.test(call.accessToken)) {
    throw new KudosTokenError('reauth_required', {
      message: `the access token stored for ${LABEL[call.service]} ${call.what} cannot be sent in a header; sign the user in again`,
    });
  }
  headers.authorization = `Bearer ${call.accessToken}`;
  return headers;
}

/** `headers` (a copy of the call's) with the body's length, when there is a body. */
function withLength(headers: Record<string, string | number>, body: string | undefined) {
  if (body) headers['Content-Length'] = Buffer.byteLength(body);
  return headers;
}

/** What never comes back out in an error of `call`: its secrets and its bearer token. */
function secretsOf(call: HttpCall): readonly string[] {
  const secrets = call.secrets ?? [];
  return call.accessToken === undefined ? secrets : [...secrets, call.accessToken];
}

/** What of a body with `status` is read, and what past that: a 2xx whole or not at all, an error's first bytes. */
export function readLimit(
  call: HttpCall,
  status: number,
): { limit: number; overflow: 'reject' | 'truncate' } {
  return isOk(status)
    ? { limit: call.maxBytes, overflow: 'reject' }
    : { limit: Math.min(call.maxBytes, MAX_ERROR_BODY_BYTES), overflow: 'truncate' };
}

const LABEL: Record<KudosService, string> = { token: 'Kudos token endpoint', api: 'Kudos API' };

/** The client's own failures. */
type Failure = 'timeout' | 'body_timeout' | 'network_error' | 'too_large' | 'not_json' | 'redirect';

/** Each failure as its service's code (the compiler checks each is one of that class's rows). */
const FAILURE_CODES = {
  token: {
    timeout: 'timeout',
    body_timeout: 'timeout',
    network_error: 'network_error',
    too_large: 'invalid_token_response',
    not_json: 'invalid_token_response',
    redirect: 'invalid_token_response',
  },
  api: {
    timeout: 'timeout',
    body_timeout: 'timeout',
    network_error: 'network_error',
    too_large: 'response_too_large',
    not_json: 'invalid_response',
    redirect: 'invalid_response',
  },
} as const satisfies {
  token: Record<Failure, KudosErrorCodeOf<'KudosTokenError'>>;
  api: Record<Failure, KudosErrorCodeOf<'KudosApiError'>>;
};

/** A failure as its service's error, its status from the error table; the message names no secret. */
export function failure(
  call: HttpCall,
  kind: Failure,
  detail: { cause?: unknown; httpStatus?: number | undefined; body?: string } = {},
): KudosTokenError | KudosApiError {
  const { cause, httpStatus, body } = detail;
  const subject = `${LABEL[call.service]} ${call.what}`;
  const message = {
    timeout: `${subject} did not answer within ${call.timeoutMs} ms`,
    body_timeout: `${subject} did not finish its answer within ${call.timeoutMs} ms`,
    network_error: `${subject} could not be reached (${reasonOf(cause)})`,
    too_large: `${subject} answered more than ${call.maxBytes} bytes`,
    not_json: `${subject} answered HTTP ${httpStatus} but not with JSON`,
    redirect: `${subject} answered HTTP ${httpStatus}, a redirect to another origin or one that would send its body again: not followed`,
  }[kind];
  if (call.service === 'api') {
    return new KudosApiError(FAILURE_CODES.api[kind], { message, cause, httpStatus });
  }
  // The body read, redacted, as a token error's non-enumerable `body` (an error answer's is too).
  const redacted = body === undefined ? undefined : redactSecrets(body, secretsOf(call));
  return new KudosTokenError(FAILURE_CODES.token[kind], { message, cause, httpStatus, body: redacted });
}

/** A network error's code (`ECONNREFUSED`), or its name: never its message, which may hold a URL. */
function reasonOf(cause: unknown): string {
  const reason = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  if (!(reason instanceof Error)) return 'failed';
  return 'code' in reason && typeof reason.code === 'string' ? reason.code : reason.name;
}

// The modules themselves, their functions read at each call: a test's HTTP mock (nock) replaces
// `request` on them, and a named import taken before it was loaded would keep the original. Asked
// of the process rather than imported, by this file and by anything else of the package that needs
// node:http (`nodeHttp`): an ES module import of node:http reads every export to build its facade, and
// one of them loads Node's bundled undici (about 15 ms of an ES module app's start), and the CommonJS
// build would wrap each module in a copy of its exports at every require() (bench/notes.md, cold start).
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

export { http as nodeHttp };

// Keep-alive agents: logins, refreshes and lookups reuse their connections.
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** Where a request goes, as node:http takes it (no `URL` to convert at each request). */
interface Target {
  protocol: string;
  hostname: string;
  port: string;
  path: string;
  agent: Agent;
}

/** A URL read once: its target, and its origin (what errors name). */
interface Endpoint {
  target: Target;
  origin: string;
}

/** The URLs asked lately: a strategy or client asks the same few endpoints all its life. */
const endpoints = new Map<string, Endpoint>();

function endpointOf(url: string): Endpoint {
  const known = endpoints.get(url);
  if (known) return known;
  const parsed = new URL(url);
  const endpoint = {
    target: {
      protocol: parsed.protocol,
      // node:http takes an IPv6 host without its brackets.
      hostname: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: parsed.port,
      path: `${parsed.pathname}${parsed.search}`,
      agent: parsed.protocol === 'https:' ? agents['https:'] : agents['http:'],
    },
    origin: parsed.origin,
  };
  // Bounded: API calls with ids in their paths must not grow it without end.
  if (endpoints.size >= 256) endpoints.clear();
  endpoints.set(url, endpoint);
  return endpoint;
}

/** The origin of `url` (what a token endpoint's errors name), read once per URL. */
export function originOf(url: string): string {
  return endpointOf(url).origin;
}

/**
 * The answer's `Content-Type` (the first, as node:http keeps it), read from its raw headers: reading
 * `res.headers` would make node:http build every header into an object for this one (a token request
 * reads no other).
 */
function contentTypeOf(rawHeaders: readonly string[]): string {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 12 && name.toLowerCase() === 'content-type') return rawHeaders[i + 1] ?? '';
  }
  return '';
}

/**
 * Sends one request with node:http and reads its whole answer, within `timeoutMs` and `maxBytes`.
 * Rejects with the service's error: `timeout` (the socket is destroyed), `network_error`, or (past
 * the cap) `invalid_token_response` / `response_too_large`. Any status resolves.
 */
export function request(call: HttpCall): Promise<HttpAnswer> {
  const { target } = endpointOf(call.url);
  const send = target.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    let settled = false;
    let answered: number | undefined;
    const finish = (error: Error | undefined, answer?: HttpAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else if (answer) resolve(answer);
    };
    const req = send(
      {
        ...target,
        method: call.method ?? 'GET',
        // An object, not node:http's faster flat array: HTTP instrumentations (OpenTelemetry's) copy
        // the headers as an object, and nock 13 refuses an array (test/tokens/http-instrumentation.test.ts).
        headers: withLength(headersOf(call), call.body),
      },
      (res) => {
        answered = res.statusCode ?? 0;
        const { limit, overflow } = readLimit(call, answered);
        readStream(res, limit, overflow, (cause, body) => {
          if (body) {
            finish(undefined, {
              status: answered ?? 0,
              contentType: contentTypeOf(res.rawHeaders),
              body: body.toString('utf8'),
            });
            return;
          }
          req.destroy();
          finish(
            cause instanceof BodyTooLargeError
              ? failure(call, 'too_large', { cause, httpStatus: answered })
              : failure(call, 'network_error', { cause }),
          );
        });
      },
    );
    const timer = setTimeout(() => {
      finish(failure(call, answered === undefined ? 'timeout' : 'body_timeout', { httpStatus: answered }));
      req.destroy();
    }, call.timeoutMs);
    req.on('error', (cause) => finish(failure(call, 'network_error', { cause })));
    req.end(call.body);
  });
}

/** The JSON of an answer; `invalid_token_response` or `invalid_response` when it is not JSON. */
export function jsonOf(answer: HttpAnswer, call: HttpCall): unknown {
  try {
    return JSON.parse(answer.body);
  } catch (cause) {
    throw failure(call, 'not_json', { cause, httpStatus: answer.status, body: answer.body });
  }
}

/**
 * The error of a non-2xx answer: the service's word (docs/kudos-service.md#errors) when it is one
 * of the error table's codes of that service, else the catch-all (`token_endpoint_error`,
 * `api_error`) with the word in `serviceCode`. `secrets` never appear in it, in any encoding (raw,
 * URL-encoded, JSON-escaped): not in the code, the message, nor a token error's raw body.
 */
export function answerError(answer: HttpAnswer, call: HttpCall & { service: 'token' }): KudosTokenError;
export function answerError(answer: HttpAnswer, call: HttpCall): KudosTokenError | KudosApiError;
export function answerError(answer: HttpAnswer, call: HttpCall): KudosTokenError | KudosApiError {
  const secrets = secretsOf(call);
  const read = readServiceError(answer.body);
  const word = read && redactSecrets(read.code, secrets) === read.code ? read.code : undefined;
  // A provider's words: no control, line-separator or bidirectional character reaches a message or a log.
  const description = read?.description
    ? `: ${cleanText(redactSecrets(read.description, secrets), 200)}`
    : '';
  const httpStatus = answer.status;
  // The table's code of the word (the RFC's `invalid_grant` for the emulator's INVALID_GRANT); the
  // word itself stays in `serviceCode` wherever it is not the code.
  const code = word === undefined ? undefined : codeOfWord(word);
  if (call.service === 'token') {
    const known = code !== undefined && isCodeOf('KudosTokenError', code);
    return new KudosTokenError(known ? code : 'token_endpoint_error', {
      message: `${LABEL.token} answered HTTP ${httpStatus} ${word ?? 'token_endpoint_error'}${description}`,
      httpStatus,
      serviceCode: known && code === word ? undefined : word,
      body: redactSecrets(answer.body, secrets),
    });
  }
  const known = code !== undefined && isCodeOf('KudosApiError', code);
  return new KudosApiError(known ? code : 'api_error', {
    message: `${LABEL.api} answered HTTP ${httpStatus} ${word ?? 'api_error'} for ${call.what}`,
    httpStatus,
    serviceCode: known && code === word ? undefined : word,
  });
}

/** A 2xx answer's JSON, or the answer's error (see {@link answerError}). */
export async function requestJson(call: HttpCall): Promise<{ status: number; json: unknown }> {
  const answer = await request(call);
  if (!isOk(answer.status)) throw answerError(answer, call);
  return { status: answer.status, json: jsonOf(answer, call) };
}
