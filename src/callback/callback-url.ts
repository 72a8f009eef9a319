import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** The parts of a request used to resolve a relative callback URL. */
export interface UrlRequest extends Pick<IncomingMessage, 'url' | 'headers' | 'socket'> {
  originalUrl?: string;
  app?: { get?: (setting: string) => unknown };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(/\s*,\s*/)[0];
}

/**
 * Resolves the callback URL the way passport-oauth2 does when it builds the authorization
 * redirect, so that the `redirect_uri` of the token exchange is the same string (section 4.2).
 * An absolute URL is used as is; a relative one is resolved against the request's own URL,
 * trusting `X-Forwarded-*` headers only when `proxy` is set or Express has `trust proxy` on.
 */
export function resolveCallbackURL(callbackURL: string, req: UrlRequest, proxy: boolean): string {
  if (URL.canParse(callbackURL)) return callbackURL;
  const trust = proxy || Boolean(req.app?.get?.('trust proxy'));
  const encrypted = Boolean((req.socket as TLSSocket | undefined)?.encrypted);
  const tls = encrypted || (trust && firstHeader(req.headers['x-forwarded-proto']) === 'https');
  const host = (trust && firstHeader(req.headers['x-forwarded-host'])) || req.headers.host;
  const here = `${tls ? 'https' : 'http'}://${host}${req.originalUrl ?? req.url ?? ''}`;
  return new URL(callbackURL, here).toString();
}
