import type { IncomingMessage } from 'node:http';

/** Host names that are this machine whatever the network says. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** The host name of a `Host` header or an origin's host, lower case, without port or IPv6 brackets. */
function hostName(host: string): string {
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.split(':', 1)[0];
  return (name ?? '').toLowerCase();
}

/**
 * Whether a request's `Host` names this emulator: a loopback name (or `*.localhost`), the address it
 * is bound to, or a host given with `allowedHosts` (`--host-allow`). Anything else is refused on every
 * route: a DNS-rebinding page (`Host: rebind.test` resolving to 127.0.0.1) reads and changes nothing.
 */
function hostAllowed(host: string | undefined, bound: string, allowed: readonly string[]): boolean {
  if (!host) return false;
  const name = hostName(host);
  if (LOOPBACK.has(name) || name.endsWith('.localhost')) return true;
  if (name === hostName(bound) && bound !== '0.0.0.0' && bound !== '::') return true;
  return allowed.some((a) => hostName(a) === name);
}

/** The `Host` check of one request (see {@link hostAllowed}). */
export function requestHostAllowed(req: IncomingMessage, bound: string, allowed: readonly string[]): boolean {
  return hostAllowed(req.headers.host, bound, allowed);
}

/**
 * Whether an `Origin` is this emulator's own pages: an allowed host on the emulator's port. A page of
 * another site (another port is another site) is refused.
 */
function ownOrigin(origin: string, port: number, bound: string, allowed: readonly string[]): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  const originPort = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return originPort === port && hostAllowed(url.host, bound, allowed);
}

/** What {@link foreignOrigin} reads of the emulator: where it listens, and the names it answers. */
interface OwnSite {
  origin: string;
  options: { host: string; allowedHosts: readonly string[] };
}

/**
 * Whether a request's `Origin`, when it has one, is another site than the emulator's own pages
 * (port included: another port is another site).
 */
export function foreignOrigin(req: IncomingMessage, site: OwnSite): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  return !ownOrigin(origin, Number(new URL(site.origin).port), site.options.host, site.options.allowedHosts);
}
