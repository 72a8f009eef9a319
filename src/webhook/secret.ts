import { REDACTED_IN_URL, redactSecrets, redactWebhookURL } from '../base/redact.js';
import { sameSecret } from '../base/same-secret.js';
import { lastSegmentBounds, splitTarget } from '../base/url-path.js';
import type { WebhookRequest } from './body.js';

/** Whether `candidate` is one of `secrets`; every one is compared (in constant time), not only up to a match. */
function matches(candidate: string, secrets: readonly string[]): boolean {
  let found = false;
  for (const secret of secrets) found = sameSecret(candidate, secret) || found;
  return found;
}

/** The last non-empty segment of a path, decoded (a trailing slash is skipped); empty when undecodable. */
function lastSegment(pathname: string): string {
  const { start, end } = lastSegmentBounds(pathname);
  try {
    return decodeURIComponent(pathname.slice(start, end));
  } catch {
    return '';
  }
}

/**
 * Checks the webhook secret carried in the URL, in the `token` query parameter or else as the
 * last non-empty path segment, and redacts both places (`redactWebhookURL()`) from `req.url`
 * and `req.originalUrl` before anything else sees them, matched or not. Returns whether it
 * matched one of `secrets`.
 */
function checkUrlSecret(req: WebhookRequest, secrets: readonly string[]): boolean {
  const { path, search } = splitTarget(req.originalUrl ?? req.url ?? '/');
  const query = new URLSearchParams(search);
  const tokens = query.getAll('token');
  const fromQuery = tokens.length > 0;
  const candidate = fromQuery ? (tokens.length === 1 ? tokens[0] : undefined) : lastSegment(path);
  const ok = candidate !== undefined && candidate !== '' && matches(candidate, secrets);
  // The usual places by shape, then the configured secrets themselves wherever they are (another
  // path segment, `token[]=`, any parameter): onError and later middleware see neither.
  const hide = (url: string) => redactSecrets(redactWebhookURL(url), secrets, REDACTED_IN_URL);
  req.url = hide(req.url ?? '/');
  if (req.originalUrl !== undefined) req.originalUrl = hide(req.originalUrl);
  redactParsed(req, 'query', secrets);
  redactParsed(req, 'params', secrets);
  return ok;
}

/**
 * Redacts the secrets from what a framework parsed out of the URL before the receiver ran (Express 4's
 * `req.query`, a route's `req.params`), when it is a plain own property; a getter (Express 5's
 * `req.query`) parses the URL redacted above.
 */
function redactParsed(req: WebhookRequest, name: 'query' | 'params', secrets: readonly string[]): void {
  const own = Object.getOwnPropertyDescriptor(req, name);
  if (!own || !('value' in own) || !own.writable || typeof own.value !== 'object' || own.value === null)
    return;
  const hide = (value: unknown): unknown =>
    typeof value === 'string'
      ? redactSecrets(value, secrets, REDACTED_IN_URL)
      : Array.isArray(value)
        ? value.map(hide)
        : value;
  for (const [key, value] of Object.entries(own.value as Record<string, unknown>)) {
    const hidden = hide(value);
    if (JSON.stringify(hidden) !== JSON.stringify(value))
      (own.value as Record<string, unknown>)[key] = hidden;
  }
}

/** The password of an `Authorization: Basic` header, or undefined when there is none. */
function basicPassword(header: string | undefined): string | undefined {
  if (header === undefined || header.length > 4096) return undefined;
  const space = header.indexOf(' ');
  if (space === -1 || header.slice(0, space).toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

/**
 * Checks the webhook secret, wherever the sender put it: in the URL ({@link checkUrlSecret}, which
 * also redacts the URL) or as the password of `Authorization: Basic` credentials, as a real
 * agent's receiver was configured (the user name is not checked). Constant-time comparisons.
 */
export function checkSecret(req: WebhookRequest, secrets: readonly string[]): boolean {
  const inUrl = checkUrlSecret(req, secrets);
  const password = basicPassword(req.headers.authorization);
  const inHeader = password !== undefined && password !== '' && matches(password, secrets);
  return inUrl || inHeader;
}
