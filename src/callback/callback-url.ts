import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { KudosError } from 'kudos-core';

/** The parts of a request used to resolve a relative callback URL. */
interface UrlRequest extends Pick<IncomingMessage, 'url' | 'headers' | 'socket'> {
  originalUrl?: string;
  /** Node's old name of `socket`; unit-test requests (chai-passport-strategy) set only this one. */
  connection?: unknown;
  app?: { get?: (setting: string) => unknown };
}

/**
 * The first value of a header that proxies may send as a comma-separated list. Plain string
 * operations, no regular expression: the header comes from the client and may be very long.
 */
function firstHeader(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const comma = text.indexOf(',');
  return (comma === -1 ? text : text.slice(0, comma)).trim();
}

/** The callback URL could not be built from the request (a hostile or broken `Host` header). */
function invalidCallbackURL(cause: unknown): KudosError {
  // The message names no request value: the Host header is the client's and may be hostile.
  return new KudosError('invalid_callback_url', {
    message:
      'the callback URL could not be built from the request: its Host (or X-Forwarded-Host/-Proto) header is not a valid host',
    cause,
  });
}

/**
 * Resolves the callback URL the way passport-oauth2 does when it builds the authorization
 * redirect, so that the `redirect_uri` of the token exchange is the same string (docs/kudos-service.md#token-exchange).
 * An absolute URL is used as is; a relative one is resolved against the request's own URL,
 * trusting `X-Forwarded-*` headers only when `proxy` is set or Express has `trust proxy` on.
 *
 * @throws KudosError `invalid_callback_url` (400) when the request's host makes the URL unparsable
 */
export function resolveCallbackURL(callbackURL: string, req: UrlRequest, proxy: boolean): string {
  if (isAbsolute(callbackURL)) return callbackURL;
  const trust = proxy || Boolean(req.app?.get?.('trust proxy'));
  // passport-oauth2 reads req.connection; a real request has both, a unit test's often only that one.
  const socket = (req.socket ?? req.connection) as TLSSocket | undefined;
  const encrypted = Boolean(socket?.encrypted);
  // Compared without case, as passport-oauth2 does: proxies send `HTTPS` as well as `https`.
  const tls =
    encrypted || (trust && firstHeader(req.headers['x-forwarded-proto'])?.toLowerCase() === 'https');
  const host = (trust && firstHeader(req.headers['x-forwarded-host'])) || req.headers.host;
  if (!host) throw invalidCallbackURL(undefined);
  const scheme = tls ? 'https' : 'http';
  // A path from the root (`/auth/kudos/callback`, the usual option) resolves the same against any
  // path of the request: remembered by scheme and host.
  const key =
    callbackURL.startsWith('/') && !callbackURL.startsWith('//') ? `${scheme} ${host} ${callbackURL}` : '';
  const known = key ? resolved.get(key) : undefined;
  if (known !== undefined) return known;
  let url: string;
  try {
    // One parse: a host that is not a host (a space, "[", a bad port) makes the base unparsable.
    url = new URL(callbackURL, `${scheme}://${host}${req.originalUrl ?? req.url ?? ''}`).toString();
  } catch (cause) {
    throw invalidCallbackURL(cause);
  }
  if (key) {
    // Bounded: the Host header is the client's to choose, and each new one must not grow this.
    if (resolved.size >= 128) resolved.clear();
    resolved.set(key, url);
  }
  return url;
}

/** Callback URLs resolved lately, by scheme, host and path (see resolveCallbackURL). */
const resolved = new Map<string, string>();

/** Whether each callback URL seen is absolute: a strategy has one or two all its life. */
const absolute = new Map<string, boolean>();

function isAbsolute(callbackURL: string): boolean {
  let known = absolute.get(callbackURL);
  if (known === undefined) {
    known = URL.canParse(callbackURL);
    if (absolute.size >= 128) absolute.clear();
    absolute.set(callbackURL, known);
  }
  return known;
}
