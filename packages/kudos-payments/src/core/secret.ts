import {
  lastSegmentBounds,
  REDACTED_IN_URL,
  redactSecrets,
  redactWebhookURL,
  sameSecret,
  splitTarget,
} from 'kudos-core';
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
 * Whether the webhook secret carried in a URL (a request target or an absolute URL) matches one of
 * `secrets`: the `token` query parameter, or else the last non-empty path segment. Pure: the URL is
 * neither changed nor kept.
 */
function urlSecretMatches(url: string, secrets: readonly string[]): boolean {
  // An absolute URL (a Fetch request's) by its path and query; a request target as it was sent.
  const absolute = /^https?:/i.test(url) && URL.canParse(url) ? new URL(url) : undefined;
  const { path, search } = absolute ? { path: absolute.pathname, search: absolute.search } : splitTarget(url);
  const tokens = new URLSearchParams(search).getAll('token');
  const candidate = tokens.length > 0 ? (tokens.length === 1 ? tokens[0] : undefined) : lastSegment(path);
  return candidate !== undefined && candidate !== '' && matches(candidate, secrets);
}

/** A request target with the secrets hidden: the usual places by shape, then the secrets themselves wherever they are. */
function hideSecrets(url: string, secrets: readonly string[]): string {
  return redactSecrets(redactWebhookURL(url), secrets, REDACTED_IN_URL);
}

/**
 * Redacts the webhook secrets from a Node request before anything else sees it (`onError`, later
 * middleware): its `url` and `originalUrl` ({@link redactWebhookURL}'s places, and the configured
 * secrets wherever they are: another path segment, `token[]=`, any parameter), and what a framework
 * parsed out of them.
 */
export function redactRequest(req: WebhookRequest, secrets: readonly string[]): void {
  req.url = hideSecrets(req.url ?? '/', secrets);
  if (req.originalUrl !== undefined) req.originalUrl = hideSecrets(req.originalUrl, secrets);
  redactParsed(req, 'query', secrets);
  redactParsed(req, 'params', secrets);
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
 * Whether a delivery carries the webhook secret, wherever the sender put it: in the URL (the `token`
 * parameter, or the last path segment) or as the password of `Authorization: Basic` credentials, as a
 * real agent's receiver was configured (the user name is not checked). Constant-time comparisons;
 * pure (redacting is {@link redactRequest}'s job).
 */
export function secretMatches(
  url: string,
  authorization: string | undefined,
  secrets: readonly string[],
): boolean {
  const inUrl = urlSecretMatches(url, secrets);
  const password = basicPassword(authorization);
  const inHeader = password !== undefined && password !== '' && matches(password, secrets);
  return inUrl || inHeader;
}
