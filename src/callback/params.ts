import type { IncomingMessage } from 'node:http';
import { isObjectLike } from '../guards.js';

/**
 * Names under which the authorization code may arrive. The interface calls it `code`, `auth_code`
 * or `authorization_code` in different places and never says which one the service sends.
 * @see docs/kudos-service.md#authorization-page
 */
export const CODE_PARAMS = ['code', 'auth_code', 'authorization_code'] as const;

/** Longest authorization code or state accepted (codes are short random strings). */
const MAX_PARAM_LENGTH = 4096;

/** What a request to the strategy's route carries. */
export type CallbackParams =
  | { kind: 'start' }
  | { kind: 'error'; error: string; description: string | undefined }
  | { kind: 'invalid'; message: string }
  | { kind: 'code'; code: string; state: string | undefined };

/** The parts of a request the strategy reads; any framework's request has them. */
export interface CallbackRequest extends Pick<IncomingMessage, 'url'> {
  originalUrl?: string;
  body?: unknown;
}

/** The values of one parameter, or undefined when the body holds something other than strings. */
type Values = string[] | undefined;

function bodyValues(body: unknown, name: string): Values {
  if (!isObjectLike(body) || !Object.hasOwn(body, name)) return [];
  const value: unknown = (body as Record<string, unknown>)[name];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  return undefined;
}

// Express 5's req.query is a getter that re-parses the URL on each read, and other frameworks
// parse differently: read the query string ourselves, so repeated parameters are always visible.
function queryOf(req: CallbackRequest): URLSearchParams {
  const raw = req.originalUrl ?? req.url ?? '';
  const mark = raw.indexOf('?');
  return new URLSearchParams(mark === -1 ? '' : raw.slice(mark + 1));
}

function collect(req: CallbackRequest, query: URLSearchParams, name: string): Values {
  const fromBody = bodyValues(req.body, name);
  return fromBody && [...query.getAll(name), ...fromBody];
}

function single(values: Values): { value: string | undefined; problem?: string } {
  if (values === undefined) return { value: undefined, problem: 'must be a single string' };
  if (values.length > 1) return { value: undefined, problem: 'was given more than once' };
  return { value: values[0] };
}

/**
 * Reads the callback parameters (`code` or an alias, `state`, `error`, `error_description`)
 * from the query string and the form body. Returns `invalid` when the code is ambiguous:
 * given twice, as an array, or under two names with different values.
 */
export function readCallbackParams(req: CallbackRequest): CallbackParams {
  const query = queryOf(req);
  const error = single(collect(req, query, 'error'));
  if (error.value) {
    const description = single(collect(req, query, 'error_description')).value;
    return { kind: 'error', error: error.value, description };
  }
  const codes = new Set<string>();
  for (const name of CODE_PARAMS) {
    const found = single(collect(req, query, name));
    if (found.problem) return { kind: 'invalid', message: `Authorization code "${name}" ${found.problem}` };
    if (found.value !== undefined) codes.add(found.value);
  }
  const state = single(collect(req, query, 'state'));
  if (state.problem) return { kind: 'invalid', message: `Parameter "state" ${state.problem}` };
  if (codes.size > 1) {
    return { kind: 'invalid', message: 'Authorization code given under two names with different values' };
  }
  const [code] = codes;
  if (code === undefined) {
    // A callback with a state but no code is broken; redirecting back to Kudos would loop.
    if (state.value !== undefined) return { kind: 'invalid', message: 'Callback has no authorization code' };
    return { kind: 'start' };
  }
  if (code === '' || code.length > MAX_PARAM_LENGTH) {
    return { kind: 'invalid', message: 'Authorization code is empty or too long' };
  }
  if (state.value !== undefined && state.value.length > MAX_PARAM_LENGTH) {
    return { kind: 'invalid', message: 'Parameter "state" is too long' };
  }
  return { kind: 'code', code, state: state.value };
}
