import { createHash, timingSafeEqual } from 'node:crypto';
import type { WebhookRequest } from './body.js';

/** What replaces the secret in `req.url` and `req.originalUrl`. */
export const REDACTED = 'REDACTED';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison: both sides are hashed to the same length first. */
function matches(candidate: string, secrets: readonly string[]): boolean {
  const given = digest(candidate);
  let found = false;
  for (const secret of secrets) found = timingSafeEqual(given, digest(secret)) || found;
  return found;
}

function lastSegment(pathname: string): string {
  const segments = pathname.split('/');
  try {
    return decodeURIComponent(segments[segments.length - 1] ?? '');
  } catch {
    return '';
  }
}

function redact(url: string, dropSegment: boolean): string {
  const parsed = new URL(url, 'http://redact.invalid');
  if (parsed.searchParams.has('token')) parsed.searchParams.set('token', REDACTED);
  if (dropSegment) parsed.pathname = parsed.pathname.replace(/[^/]*$/, REDACTED);
  return parsed.pathname + parsed.search;
}

/**
 * Checks the webhook secret carried in the URL, in the `token` query parameter or else as the
 * last path segment, and redacts it from `req.url` and `req.originalUrl` before anything else
 * sees them. Returns whether it matched one of `secrets`.
 */
export function checkUrlSecret(req: WebhookRequest, secrets: readonly string[]): boolean {
  const url = new URL(req.originalUrl ?? req.url ?? '/', 'http://secret.invalid');
  const tokens = url.searchParams.getAll('token');
  const fromQuery = tokens.length > 0;
  const candidate = fromQuery ? (tokens.length === 1 ? tokens[0] : undefined) : lastSegment(url.pathname);
  const ok = candidate !== undefined && candidate !== '' && matches(candidate, secrets);
  const dropSegment = ok && !fromQuery;
  if (fromQuery || dropSegment) {
    req.url = redact(req.url ?? '/', dropSegment);
    if (req.originalUrl !== undefined) req.originalUrl = redact(req.originalUrl, dropSegment);
  }
  return ok;
}
