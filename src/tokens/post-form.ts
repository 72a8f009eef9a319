// Named imports: the CommonJS build then reads two properties instead of wrapping each module.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { stringify } from 'node:querystring';
import { KudosTokenError } from '../base/errors.js';
import { BodyTooLargeError, readCapped } from '../base/read-capped.js';

/** What the token endpoint answered, read whole. */
export interface FormResponse {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Form fields of a token request. Values that are not strings are encoded as passport-oauth2 (through
 * node-oauth and `querystring.stringify`) encodes them: numbers, booleans and bigints as text, arrays
 * as repeated keys, anything else as an empty value.
 */
export type FormFields = Readonly<Record<string, unknown>>;

/** What every request to the token endpoint takes besides its form. */
export interface TokenEndpointRequest {
  /** Time limit in milliseconds for the answer and its body. */
  timeout: number;
  /** Headers sent with the request (the strategy's `customHeaders`); the form's own headers win. */
  headers?: Readonly<Record<string, string>>;
}

/** Largest response body read from a token endpoint (token responses are a few kB). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

// Keep-alive agents: logins and refreshes reuse connections to the token endpoint. node:http
// with keep-alive was measured about 1.6x faster than fetch for this POST on Node 20.
const agents = {
  'http:': new HttpAgent({ keepAlive: true }),
  'https:': new HttpsAgent({ keepAlive: true }),
};

/**
 * POSTs an `application/x-www-form-urlencoded` body and reads the whole answer, within `timeout`.
 * When the deadline passes, the socket is destroyed and the promise rejects with `KudosTokenError`
 * code `timeout` (status 504); a connection failure rejects with `network_error` (502).
 * Messages name the endpoint's origin only, never the form's values.
 */
export function postForm(
  endpoint: string,
  form: FormFields,
  { timeout: timeoutMs, headers }: TokenEndpointRequest,
): Promise<FormResponse> {
  const url = new URL(endpoint);
  const payload = Buffer.from(stringify(form as Record<string, never>));
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: KudosTokenError | undefined, response?: FormResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else if (response) resolve(response);
    };
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': payload.length,
          Accept: 'application/json, text/plain',
        },
      },
      (res) => {
        readCapped(res, MAX_RESPONSE_BYTES, 'reject').then(
          (body) =>
            finish(undefined, {
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body: body.toString('utf8'),
            }),
          (cause: unknown) => {
            req.destroy();
            if (!(cause instanceof BodyTooLargeError)) return finish(networkError(url, cause as Error));
            finish(
              new KudosTokenError(`Kudos token endpoint answered more than ${MAX_RESPONSE_BYTES} bytes`, {
                code: 'invalid_token_response',
                status: 502,
                httpStatus: res.statusCode,
              }),
            );
          },
        );
      },
    );
    const timer = setTimeout(() => {
      finish(
        new KudosTokenError(`Kudos token endpoint ${url.origin} did not answer within ${timeoutMs} ms`, {
          code: 'timeout',
          status: 504,
        }),
      );
      req.destroy();
    }, timeoutMs);
    req.on('error', (cause) => finish(networkError(url, cause)));
    req.end(payload);
  });
}

function networkError(url: URL, cause: Error): KudosTokenError {
  const reason = 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.name;
  return new KudosTokenError(`Kudos token endpoint ${url.origin} could not be reached (${reason})`, {
    code: 'network_error',
    status: 502,
    cause,
  });
}
