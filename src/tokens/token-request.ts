import { KudosTokenError } from '../errors.js';
import { isObjectLike } from '../guards.js';
import { redactSecrets } from '../redact.js';
import { readServiceError, type ServiceError } from '../service-error.js';
import { type KudosTokenResponse, validateTokenResponse } from '../token-response.js';
import { type FormResponse, postForm } from './post-form.js';

/** Code used when the token endpoint answered an error without a readable code of its own. */
export const UNREADABLE_ERROR_CODE = 'token_endpoint_error';

/** Form fields that carry secrets and must never come back out in an error. */
const SECRET_FIELDS = ['client_secret', 'code', 'refresh_token', 'token', 'code_verifier'];

/** The secret values of a form: the client secret, codes and tokens. */
export function secretsOf(form: Record<string, string>): string[] {
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

/** Reads the service's error code from an error answer; undefined when there is none. */
export function readErrorCode(response: FormResponse): ServiceError | undefined {
  return readServiceError(response.body);
}

/**
 * The typed error of a non-2xx token endpoint answer. `secrets` never appear in it, in any encoding
 * (raw, URL-encoded, JSON-escaped): not in the code, the message, nor the non-enumerable raw body.
 */
export function errorAnswer(response: FormResponse, secrets: readonly string[]): KudosTokenError {
  const read = readErrorCode(response);
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
 * Interprets a token endpoint answer: a 2xx JSON token response is validated and returned;
 * anything else becomes a `KudosTokenError`. Values of `secrets` never appear in the error.
 */
export function interpretTokenAnswer<T = KudosTokenResponse>(
  response: FormResponse,
  secrets: readonly string[],
  validate: (json: unknown) => T = validateTokenResponse as (json: unknown) => T,
): T {
  if (response.status < 200 || response.status >= 300) throw errorAnswer(response, secrets);
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
    throw errorAnswer(response, secrets);
  }
  return validate(json);
}

/**
 * POSTs a token request (authorization code or refresh) and returns the validated answer.
 * Rejects with `KudosTokenError`: the service's code, `timeout`, `network_error` or
 * `invalid_token_response`.
 */
export async function requestTokens<T = KudosTokenResponse>(
  endpoint: string,
  form: Record<string, string>,
  timeoutMs: number,
  validate?: (json: unknown) => T,
): Promise<T> {
  const response = await postForm(endpoint, form, timeoutMs);
  return interpretTokenAnswer(response, secretsOf(form), validate);
}
