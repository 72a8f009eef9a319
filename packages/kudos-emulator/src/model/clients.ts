import type { ServiceErrorWord } from 'kudos-core';
import { sameSecret } from '../checks.js';
import type { EmulatorClient } from '../emulator-options.js';
import type { EmulatorState } from '../state.js';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether `uri` is whitelisted for the client: exact match, except that for a loopback host the
 * port is ignored (RFC 8252 section 7.3), so apps on a free port can be registered once.
 */
export function redirectURIAllowed(client: EmulatorClient, uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const given = new URL(uri);
  return client.redirectURIs.some((registered) => {
    if (registered === uri) return true;
    const allowed = new URL(registered);
    if (!LOOPBACK.has(allowed.hostname) || allowed.hostname !== given.hostname) return false;
    return (
      allowed.protocol === given.protocol &&
      allowed.pathname === given.pathname &&
      allowed.search === given.search &&
      given.hash === ''
    );
  });
}

/**
 * Whether `uri` is on the origin of one of the client's redirect URIs (a loopback one on any port,
 * as redirect URIs are matched): where the client may be sent back after signing out.
 */
export function clientOriginAllowed(client: EmulatorClient, uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const given = new URL(uri);
  return client.redirectURIs.some((registered) => {
    const allowed = new URL(registered);
    if (allowed.origin === given.origin) return true;
    return (
      LOOPBACK.has(allowed.hostname) &&
      allowed.hostname === given.hostname &&
      allowed.protocol === given.protocol
    );
  });
}

/** Result of authenticating a client at the token or revocation endpoint. */
type ClientCheck =
  | { ok: true; client: Required<EmulatorClient> }
  | { ok: false; code: Extract<ServiceErrorWord, 'MISSING_CLIENT_INFO' | 'INVALID_CLIENT_CRED'> };

/** Checks `client_id` and `client_secret` of a form body (docs/kudos-service.md#token-exchange, docs/kudos-service.md#errors). */
export function authenticateClient(state: EmulatorState, form: URLSearchParams): ClientCheck {
  const id = form.get('client_id');
  const secret = form.get('client_secret');
  if (!id || !secret) return { ok: false, code: 'MISSING_CLIENT_INFO' };
  const client = state.clients.get(id);
  if (!client || !sameSecret(client.clientSecret, secret)) return { ok: false, code: 'INVALID_CLIENT_CRED' };
  return { ok: true, client };
}
