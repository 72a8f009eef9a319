import { stringify } from 'node:querystring';
import {
  answerError,
  type HttpAnswer,
  type HttpCall,
  isObjectLike,
  isOk,
  jsonOf,
  type KudosTokenRequestMessage,
  type KudosTokenResponse,
  originOf,
  request,
  traced,
  traceURL,
  validateTokenResponse,
} from 'kudos-core';

/**
 * Form fields of a token request. Values that are not strings are encoded as passport-oauth2 (through
 * node-oauth and `querystring.stringify`) encodes them: numbers, booleans and bigints as text, arrays
 * as repeated keys, anything else as an empty value.
 */
type FormFields = Readonly<Record<string, unknown>>;

/** What every request to the token endpoint takes besides its form. */
export interface TokenEndpointRequest {
  /** Time limit in milliseconds for the answer and its body. */
  timeout: number;
  /** Headers sent with the request (the strategy's `customHeaders`); the form's own headers win. */
  headers?: Readonly<Record<string, string>>;
}

/** A call to the token endpoint: its errors are `KudosTokenError`s. */
type TokenCall = HttpCall & { service: 'token' };

/** Largest response body read from a token endpoint (token responses are a few kB). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** Form fields that carry secrets and must never come back out in an error. */
const SECRET_FIELDS = ['client_secret', 'code', 'refresh_token', 'token', 'code_verifier'];

/** The secret values of a form: the client secret, codes and tokens (a loop: once per token request). */
function secretsOf(form: FormFields): string[] {
  const secrets: string[] = [];
  for (const field of SECRET_FIELDS) {
    const value = form[field];
    if (typeof value === 'string' && value !== '') secrets.push(value);
  }
  return secrets;
}

/**
 * The HTTP client's call of a form POSTed to `endpoint` (`application/x-www-form-urlencoded`):
 * errors name the endpoint's origin only, and never hold the form's secrets.
 */
export function formCall(
  endpoint: string,
  form: FormFields,
  { timeout, headers }: TokenEndpointRequest,
): TokenCall {
  return {
    service: 'token',
    what: originOf(endpoint),
    url: endpoint,
    method: 'POST',
    headers: {
      ...headers,
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json, text/plain',
    },
    body: stringify(form as Record<string, never>),
    timeoutMs: timeout,
    maxBytes: MAX_RESPONSE_BYTES,
    secrets: secretsOf(form),
  };
}

/**
 * The strategy's `parseErrorResponse(body, status)` hook, as passport-oauth2 calls it: an `Error` it
 * returns is the error; when it returns anything else, the `KudosTokenError` is (what a hook that
 * throws means is the callback's to say: callback/exchange.ts).
 */
type ParseErrorResponse = (body: string, status: number) => unknown;

/** How {@link requestTokens} reads the answer, beyond the time limit and headers of the request. */
interface TokenRequestOptions<T> extends TokenEndpointRequest {
  /** Validates a 2xx JSON answer; default: a sign-in token response. */
  validate?: (json: unknown) => T;
  /** Called for an error answer (the body with the request's secrets redacted, and the HTTP status). */
  parseErrorResponse?: ParseErrorResponse;
}

function errorOf(answer: HttpAnswer, call: TokenCall, parse: ParseErrorResponse | undefined): Error {
  const typed = answerError(answer, call);
  if (!parse) return typed;
  const custom = parse(typed.body ?? '', answer.status);
  return custom instanceof Error ? custom : typed;
}

/**
 * Interprets a token endpoint answer: a 2xx JSON token response is validated and returned;
 * anything else becomes a `KudosTokenError` (or what `parseErrorResponse` makes of an error
 * answer). The form's secrets never appear in a `KudosTokenError`.
 */
function interpretTokenAnswer<T = KudosTokenResponse>(
  answer: HttpAnswer,
  call: TokenCall,
  options: Pick<TokenRequestOptions<T>, 'validate' | 'parseErrorResponse'> = {},
): T {
  const validate = options.validate ?? (validateTokenResponse as (json: unknown) => T);
  if (!isOk(answer.status)) {
    throw errorOf(answer, call, options.parseErrorResponse);
  }
  const json = jsonOf(answer, call);
  // Some OAuth servers answer 200 with an error object; treat it as the error it is.
  if (isObjectLike(json) && 'error' in json && !('access_token' in json)) {
    throw errorOf(answer, call, options.parseErrorResponse);
  }
  return validate(json);
}

/**
 * POSTs a token request (authorization code or refresh) and returns the validated answer; the HTTP
 * status goes into the trace's `message` when there is one.
 * Rejects with `KudosTokenError`: the service's code, `timeout`, `network_error` or
 * `invalid_token_response` (or with the error `parseErrorResponse` returns for an error answer).
 */
export async function requestTokens<T = KudosTokenResponse>(
  endpoint: string,
  form: FormFields,
  options: TokenRequestOptions<T>,
  message?: KudosTokenRequestMessage,
): Promise<T> {
  const call = formCall(endpoint, form, options);
  const answer = await request(call);
  if (message) message.statusCode = answer.status;
  return interpretTokenAnswer(answer, call, options);
}

/**
 * One request to the token or revocation endpoint, traced on its channel (`passport-kudos:token`,
 * `:refresh`, `:revoke`): `success` when `run` resolves, else the code it rejects with.
 */
export function tracedTokenRequest<T>(
  operation: KudosTokenRequestMessage['operation'],
  endpoint: string,
  run: (message: KudosTokenRequestMessage | undefined) => Promise<T>,
): Promise<T> {
  return traced(
    operation,
    () => ({ operation, method: 'POST', url: traceURL(endpoint) }),
    // Untraced (no subscriber), the request's own promise: no frame around it on a login's path.
    (message) =>
      message === undefined
        ? run(undefined)
        : run(message).then((value) => {
            message.outcome = 'success';
            return value;
          }),
  );
}
