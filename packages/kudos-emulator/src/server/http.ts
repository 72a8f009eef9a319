import type { IncomingMessage, ServerResponse } from 'node:http';
import { SERVICE_ERRORS, type ServiceErrorWord } from 'kudos-core';
import { isRecord } from '../checks.js';
import type { EmulatorOperation } from './route-table.js';

/** One request as the emulator's handlers see it. */
export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  method: string;
  cookies: Map<string, string>;
  /** Path parameters captured by the route pattern. */
  params: string[];
  /** The operation served, when the handler knows better than its route (a refresh at the token endpoint). */
  operation?: EmulatorOperation;
}

/** Largest request body the emulator reads (forms and JSON are small). */
const MAX_BODY_BYTES = 64 * 1024;

/** Why a body could not be read. */
class BodyError extends Error {
  constructor(readonly reason: 'too_large' | 'aborted') {
    super(reason === 'too_large' ? 'request body too large' : 'request body aborted');
  }
}

/**
 * Reads the whole request body, up to {@link MAX_BODY_BYTES}. Past it the rest is drained, not
 * destroyed, so that the 413 can still be answered on the connection.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (error?: BodyError) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.resume();
      settle(new BodyError('too_large'));
    };
    req.on('data', onData);
    req.once('end', () => settle());
    req.once('error', () => settle(new BodyError('aborted')));
    req.once('close', () => settle(new BodyError('aborted')));
  });
}

/** The media type of a request, lower case, without parameters. */
export function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
}

/**
 * Reads an `application/x-www-form-urlencoded` body. Returns undefined when the content type is
 * another one, the body is not valid UTF-8, or it cannot be read.
 */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (mediaType(req) !== 'application/x-www-form-urlencoded') return undefined;
  try {
    const body = await readBody(req);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    return new URLSearchParams(text);
  } catch {
    return undefined;
  }
}

/**
 * Reads the fields of a token or revocation request the way the service does (observed,
 * docs/kudos-service.md#token-exchange): a form body, a JSON object body, or none at all, with the
 * query string filling any field the body does not have. Undefined when the body cannot be parsed.
 */
export async function readClientRequest(
  req: IncomingMessage,
  query: URLSearchParams,
): Promise<URLSearchParams | undefined> {
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch {
    return undefined;
  }
  let fields: URLSearchParams;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    const type = mediaType(req);
    if (text.trim() === '') fields = new URLSearchParams();
    else if (type === 'application/x-www-form-urlencoded') fields = new URLSearchParams(text);
    else if (type === 'application/json') {
      const json: unknown = JSON.parse(text);
      if (!isRecord(json)) return undefined;
      fields = new URLSearchParams();
      for (const [name, value] of Object.entries(json)) {
        if (typeof value === 'string') fields.append(name, value);
        else if (typeof value === 'number' || typeof value === 'boolean') fields.append(name, String(value));
        else return undefined;
      }
    } else return undefined;
  } catch {
    return undefined;
  }
  for (const [name, value] of query) if (!fields.has(name)) fields.append(name, value);
  return fields;
}

/** The one value of a form or query field; undefined when absent or given more than once. */
export function field(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  return all.length === 1 ? all[0] : undefined;
}

/** `decodeURIComponent` that answers undefined for malformed input instead of throwing. */
export function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** Parses a Cookie header; malformed values are skipped. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    const value = eq > 0 ? safeDecode(part.slice(eq + 1).trim()) : undefined;
    if (value !== undefined) cookies.set(part.slice(0, eq).trim(), value);
  }
  return cookies;
}

/** Headers of every answer; an answer that set its own caching (the API's) keeps it. */
function securityHeaders(res: ServerResponse): Record<string, string> {
  return res.hasHeader('cache-control')
    ? { 'x-content-type-options': 'nosniff' }
    : { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
}

/** Answers a plain-text error code, as the original service does (docs/kudos-service.md#errors). */
export function sendCode(res: ServerResponse, status: number, code: string, type = 'text/plain'): void {
  res.writeHead(status, { ...securityHeaders(res), 'content-type': `${type}; charset=utf-8` });
  res.end(code);
}

/**
 * Answers one of the service's error words with its status. The authenticated API sends it as
 * `text/html`, the framework's default for a plain string (observed, docs/kudos-service.md#errors).
 */
export function sendServiceError(res: ServerResponse, word: ServiceErrorWord, api = false): void {
  sendCode(res, SERVICE_ERRORS[word].status, word, api ? 'text/html' : 'text/plain');
}

/** Answers an error word of the emulator's own (where the service's answer is not known), as the API would. */
export function sendApiCode(res: ServerResponse, status: number, code: string): void {
  sendCode(res, status, code, 'text/html');
}

export function sendJson(res: ServerResponse, status: number, body: unknown, indent?: number): void {
  res.writeHead(status, { ...securityHeaders(res), 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body, null, indent));
}

/**
 * Answers an HTML page; framing is refused, as a consent page must (clickjacking). Scripts run only
 * with `scriptNonce` (the one page that needs one carries it).
 */
export function sendHtml(res: ServerResponse, status: number, html: string, scriptNonce?: string): void {
  const scripts = scriptNonce === undefined ? '' : `; script-src 'nonce-${scriptNonce}'`;
  res.writeHead(status, {
    ...securityHeaders(res),
    'content-type': 'text/html; charset=utf-8',
    'x-frame-options': 'DENY',
    'content-security-policy': `default-src 'self'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'${scripts}`,
  });
  res.end(html);
}

/** `url` with the defined `values` set in its query string. */
export function withQuery(url: string, values: Record<string, string | undefined>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) target.searchParams.set(name, value);
  return target.toString();
}

/** Redirects with 302. */
export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { ...securityHeaders(res), location });
  res.end();
}

/** Sets an HttpOnly, SameSite=Lax cookie on the whole emulator. */
export function setCookie(res: ServerResponse, name: string, value: string, maxAgeSeconds?: number): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  res.appendHeader('set-cookie', parts.join('; '));
}
