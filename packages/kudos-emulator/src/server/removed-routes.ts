import type { ServerResponse } from 'node:http';
import { KUDOS_CHAIN } from 'kudos-core';
import type { EmulatorGeneration } from '../emulator-options.js';
import { API_PREFIX } from './route-table.js';

// What the service removed in 2026 (docs/kudos-service.md#what-the-service-removed-in-2026): its chain
// proxies (2026-05-21), its transaction routes and two user routes (2026-08-21). Under the emulator's
// `2026` generation they answer as the service does now: Express's own 404 page. The chain node's own
// REST interface stays, at `/chain`: what a shop points `restURL` at.

/** Where the emulator serves the chain node's own REST interface, apart from the service's proxy. */
export const CHAIN_NODE_PREFIX = '/chain';

/**
 * The route of a request to the chain node (`/chain/cosmos/tx/v1beta1/txs/…`): the same path under the
 * service's proxy (`/api/cosmos/lcd/…`), where the chain's routes are registered; undefined otherwise.
 */
export function chainNodePath(url: string): string | undefined {
  if (!url.startsWith(`${CHAIN_NODE_PREFIX}/`)) return undefined;
  return `${API_PREFIX}${KUDOS_CHAIN.lcd}${url.slice(CHAIN_NODE_PREFIX.length)}`;
}

/** The API paths (after `{baseURL}`) the service no longer serves. */
const REMOVED_IN_2026 = [
  /^\/cosmos\/(lcd|rpc)(\/|$)/,
  /^\/tx(\/|$)/,
  /^\/users\/id\/[^/]+\/?$/,
  /^\/users\/self\/?$/,
];

/** The path of an API request relative to `{baseURL}`, when the generation removed it. */
export function removedPath(generation: EmulatorGeneration, pathname: string): string | undefined {
  if (generation !== '2026' || !pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const path = pathname.slice(API_PREFIX.length);
  return REMOVED_IN_2026.some((removed) => removed.test(path)) ? path : undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Express 5's answer to a route it does not have: 404, `Cannot GET /path` in an HTML page. */
export function sendExpressNotFound(res: ServerResponse, method: string, path: string): void {
  const body = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${escapeHtml(method)} ${escapeHtml(path)}</pre>\n</body>\n</html>\n`;
  res.writeHead(404, {
    'content-security-policy': "default-src 'none'",
    'x-content-type-options': 'nosniff',
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
