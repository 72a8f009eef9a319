import type { IncomingMessage } from 'node:http';
import { isObjectLike } from 'kudos-core';

/**
 * Names under which the authorization code may arrive. The interface calls it `code`, `auth_code`
 * or `authorization_code` in different places and never says which one the service sends.
 * @see docs/kudos-service.md#authorization-page
 */
const CODE_PARAMS = ['code', 'auth_code', 'authorization_code'] as const;

/**
 * Every parameter that makes a request a callback rather than the start of a login. A request
 * carrying any of them, in any form, is read here and never handed to passport-oauth2's callback.
 */
const CALLBACK_PARAMS = [...CODE_PARAMS, 'state', 'error', 'error_description', 'error_uri'] as const;
type CallbackParamName = (typeof CALLBACK_PARAMS)[number];
const CALLBACK_NAMES: ReadonlySet<string> = new Set(CALLBACK_PARAMS);

/** Longest authorization code or state accepted (codes are short random strings). */
const MAX_PARAM_LENGTH = 4096;

/** What a request to the strategy's route carries. */
export type CallbackParams =
  | { kind: 'start' }
  | { kind: 'error'; error: string; description: string | undefined }
  | { kind: 'invalid'; message: string }
  | { kind: 'code'; code: string; state: string | undefined };

/** The parts of a request the strategy reads; any framework's request has them. */
interface CallbackRequest extends Partial<Pick<IncomingMessage, 'url'>> {
  originalUrl?: string;
  /** The framework's parsed query string (Express, Fastify, or a test setting only `req.query`). */
  query?: unknown;
  body?: unknown;
}

/** One parameter as found: absent, one string, or something that is not one string. */
type Found = { kind: 'absent' } | { kind: 'one'; value: string } | { kind: 'bad'; problem: string };

const ABSENT: Found = { kind: 'absent' };
const REPEATED: Found = { kind: 'bad', problem: 'was given more than once' };
const NOT_A_STRING: Found = { kind: 'bad', problem: 'must be a single string' };

/** A parsed value (framework query or body): only a plain string is one parameter. */
function fromParsed(value: unknown): Found {
  if (typeof value === 'string') return { kind: 'one', value };
  // An array is a repeated parameter (`?code=a&code=b`) or bracket syntax (`?code[]=a`).
  if (Array.isArray(value) && value.length > 1) return REPEATED;
  return NOT_A_STRING;
}

function fromObject(source: unknown, name: string): Found {
  if (!isObjectLike(source) || !Object.hasOwn(source, name)) return ABSENT;
  return fromParsed((source as Record<string, unknown>)[name]);
}

/** A parameter of the URL's query string: how often it was given, and its first value. */
interface Seen {
  count: number;
  value: string;
}

function fromURL(seen: Seen | undefined): Found {
  if (seen === undefined) return ABSENT;
  return seen.count > 1 ? REPEATED : { kind: 'one', value: seen.value };
}

/** Query and body together: a parameter given in both is given twice. */
function merge(a: Found, b: Found): Found {
  if (a.kind === 'absent') return b;
  if (b.kind === 'absent') return a;
  return a.kind === 'bad' ? a : b.kind === 'bad' ? b : REPEATED;
}

/** Keys such as `code[]`, `code[x]` or `state.x`: a callback parameter in a structured form. */
function structuredKey(key: string): CallbackParamName | undefined {
  for (const name of CALLBACK_PARAMS) {
    if (key.length > name.length && key.startsWith(name) && '[.'.includes(key[name.length] as string)) {
      return name;
    }
  }
  return undefined;
}

/**
 * The query string as the framework parsed it when it did (Express 4 `qs`, Express 5's simple
 * parser, Fastify, or a unit test that sets only `req.query`), else as the URL has it. Parsers
 * disagree (Express 4 turns `code[]=x` into an array, Express 5 keeps the key `code[]`), so both
 * views are read, and both must agree that a parameter is a single string.
 */
class Sources {
  /** The callback parameters of the URL's query string, read in one pass (a login's hot path). */
  private readonly url = new Map<string, Seen>();
  /** The first callback parameter the URL gives in a structured form (`code[]=x`). */
  private urlStructured: CallbackParamName | undefined;
  private readonly parsed: unknown;
  private readonly body: unknown;

  constructor(req: CallbackRequest) {
    const raw = req.originalUrl ?? req.url ?? '';
    const mark = raw.indexOf('?');
    if (mark !== -1) {
      const query = raw.slice(mark + 1);
      // Nothing encoded (no `%`, no `+`), as a callback's query usually is: split by hand, the same
      // pairs URLSearchParams would give, without its objects (a login's hot path).
      if (query.includes('%') || query.includes('+')) {
        for (const [key, value] of new URLSearchParams(query)) this.see(key, value);
      } else {
        for (let start = 0, end = 0; start < query.length; start = end + 1) {
          end = query.indexOf('&', start);
          if (end === -1) end = query.length;
          if (end === start) continue; // an empty pair (`&&`) is no parameter
          const eq = query.indexOf('=', start);
          if (eq === -1 || eq > end) this.see(query.slice(start, end), '');
          else this.see(query.slice(start, eq), query.slice(eq + 1, end));
        }
      }
    }
    this.parsed = req.query;
    this.body = req.body;
  }

  /** One parameter of the URL's query string. */
  private see(key: string, value: string): void {
    if (CALLBACK_NAMES.has(key)) {
      const seen = this.url.get(key);
      if (seen) seen.count++;
      else this.url.set(key, { count: 1, value });
    } else this.urlStructured ??= structuredKey(key);
  }

  get(name: CallbackParamName): Found {
    const parsed = fromObject(this.parsed, name);
    const fromQuery = parsed.kind === 'absent' ? fromURL(this.url.get(name)) : parsed;
    return merge(fromQuery, fromObject(this.body, name));
  }

  /** The first callback parameter given in a structured form (`code[]=x`), in any source. */
  structured(): CallbackParamName | undefined {
    if (this.urlStructured) return this.urlStructured;
    for (const source of [this.parsed, this.body]) {
      if (!isObjectLike(source)) continue;
      for (const key in source) {
        const name = Object.hasOwn(source, key) ? structuredKey(key) : undefined;
        if (name) return name;
      }
    }
    return undefined;
  }
}

function describe(name: CallbackParamName): string {
  return (CODE_PARAMS as readonly string[]).includes(name)
    ? `Authorization code "${name}"`
    : `Parameter "${name}"`;
}

function invalid(message: string): CallbackParams {
  return { kind: 'invalid', message };
}

/**
 * Reads the callback parameters (`code` or an alias, `state`, `error`, `error_description`,
 * `error_uri`) from the query string and the form body. A request with none of them, in any form,
 * is the start of a login. Any other request is a callback, and a malformed one (a parameter given
 * twice, as an array or object, empty, too long, or the code under two names with different values)
 * is `invalid`; messages name the parameter, never its value.
 */
export function readCallbackParams(req: CallbackRequest): CallbackParams {
  const sources = new Sources(req);
  const structured = sources.structured();
  if (structured) return invalid(`${describe(structured)} must be a single string`);
  const found: Partial<Record<CallbackParamName, string>> = {};
  let any = false;
  for (const name of CALLBACK_PARAMS) {
    const value = sources.get(name);
    if (value.kind === 'bad') return invalid(`${describe(name)} ${value.problem}`);
    if (value.kind === 'one') {
      found[name] = value.value;
      any = true;
    }
  }
  if (!any) return { kind: 'start' };
  const error = found.error;
  if (error !== undefined) {
    if (error === '') return invalid('Parameter "error" is empty');
    return { kind: 'error', error, description: found.error_description };
  }
  let code: string | undefined;
  for (const name of CODE_PARAMS) {
    const value = found[name];
    if (value === undefined) continue;
    if (code !== undefined && value !== code)
      return invalid('Authorization code given under two names with different values');
    code = value;
  }
  // A callback without a code is broken; starting a new login from it could loop.
  if (code === undefined) return invalid('Callback has no authorization code');
  if (code === '' || code.length > MAX_PARAM_LENGTH)
    return invalid('Authorization code is empty or too long');
  const state = found.state;
  if (state !== undefined && state.length > MAX_PARAM_LENGTH) return invalid('Parameter "state" is too long');
  return { kind: 'code', code, state };
}
