import { KudosTokenError } from '../base/errors.js';
import { isObjectLike } from '../base/guards.js';
import { redactSecrets } from '../base/redact.js';
import { type KudosTokenRequestMessage, traced, traceURL } from '../base/trace.js';
import { readServiceError, type ServiceError } from '../protocol/service-errors.js';
import { type KudosTokenResponse, validateTokenResponse } from '../protocol/token-response.js';
import { type FormFields, type FormResponse, postForm, type TokenEndpointRequest } from './post-form.js';

/** Code used when the token endpoint answered an error without a readable code of its own. */
const UNREADABLE_ERROR_CODE = 'token_endpoint_error';

/** Form fields that carry secrets and must never come back out in an error. */
const SECRET_FIELDS = ['client_secret', 'code', 'refresh_token', 'token', 'code_verifier'];

/** The secret values of a form: the client secret, codes and tokens. */
export function secretsOf(form: FormFields): string[] {
  return SECRET_FIELDS.map((field) => form[field]).filter(
    (v): v is string => typeof v === 'string' && v !== '',
  );
}

function mentionsSecret(text: string, secrets: readonly string[]): boolean {
  return redactSecrets(text, secrets) !== text;
}

function readJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * The typed error of a non-2xx token endpoint answer. `secrets` never appear in it, in any encoding
 * (raw, URL-encoded, JSON-escaped): not in the code, the message, nor the non-enumerable raw body.
 */
export function errorAnswer(response: FormResponse, secrets: readonly string[]): KudosTokenError {
  const read: ServiceError | undefined = readServiceError(response.body);
  const code = read && !mentionsSecret(read.code, secrets) ? read.code : UNREADABLE_ERROR_CODE;
  const description = read?.description ? `: ${redactSecrets(read.description, secrets).slice(0, 200)}` : '';
  return new KudosTokenError(`Kudos token endpoint answered HTTP ${response.status} ${code}${description}`, {
    code,
    status: 502,
    httpStatus: response.status,
    body: redactSecrets(response.body, secrets),
  });
}

/**
 * The strategy's `parseErrorResponse(body, status)` hook, as passport-oauth2 calls it: an `Error` it
 * returns is the error; when it returns nothing (or throws), the `KudosTokenError` is.
 */
type ParseErrorResponse = (body: string, status: number) => unknown;

/** How {@link requestTokens} reads the answer, beyond the time limit and headers of the request. */
interface TokenRequestOptions<T> extends TokenEndpointRequest {
  /** Validates a 2xx JSON answer; default: a sign-in token response. */
  validate?: (json: unknown) => T;
  /** Called for an error answer (the body with the request's secrets redacted, and the HTTP status). */
  parseErrorResponse?: ParseErrorResponse;
}

function errorOf(
  response: FormResponse,
  secrets: readonly string[],
  parse: ParseErrorResponse | undefined,
): Error {
  const typed = errorAnswer(response, secrets);
  if (!parse) return typed;
  try {
    const custom = parse(typed.body ?? '', response.status);
    return custom instanceof Error ? custom : typed;
  } catch {
    // passport-oauth2 ignores a parser that throws, and so does this: the typed error stands.
    return typed;
  }
}

/**
 * Interprets a token endpoint answer: a 2xx JSON token response is validated and returned;
 * anything else becomes a `KudosTokenError` (or what `parseErrorResponse` makes of an error
 * answer). Values of `secrets` never appear in a `KudosTokenError`.
 */
function interpretTokenAnswer<T = KudosTokenResponse>(
  response: FormResponse,
  secrets: readonly string[],
  options: Pick<TokenRequestOptions<T>, 'validate' | 'parseErrorResponse'> = {},
): T {
  const validate = options.validate ?? (validateTokenResponse as (json: unknown) => T);
  if (response.status < 200 || response.status >= 300) {
    throw errorOf(response, secrets, options.parseErrorResponse);
  }
  const json = readJson(response.body);
  if (json === undefined) {
    throw new KudosTokenError('token response is not JSON', {
      code: 'invalid_token_response',
      status: 502,
      httpStatus: response.status,
      body: redactSecrets(response.body, secrets),
    });
  }
  // Some OAuth servers answer 200 with an error object; treat it as the error it is.
  if (isObjectLike(json) && 'error' in json && !('access_token' in json)) {
    throw errorOf(response, secrets, options.parseErrorResponse);
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
  const response = await postForm(endpoint, form, options);
  if (message) message.statusCode = response.status;
  return interpretTokenAnswer(response, secretsOf(form), options);
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
    async (message) => {
      const value = await run(message);
      if (message) message.outcome = 'success';
      return value;
    },
  );
}
