import type { IncomingMessage, ServerResponse } from 'node:http';
import { KUDOS_CHAIN } from 'kudos-core';
import { API_PREFIX } from './route-table.js';

/** Where the chain's REST interface is proxied under the API (docs/kudos-service.md#chain-lookup). */
const CHAIN_PREFIX = `${API_PREFIX}${KUDOS_CHAIN.lcd}/`;

/**
 * Sets what every answer of the API carries, as observed (docs/kudos-service.md#authenticated-api):
 * caching off (`public, max-age=1` for chain lookups), and CORS that reflects the request's `Origin`
 * with credentials allowed. Answers a preflight (`OPTIONS`) itself with 204 and returns true then.
 * Requests outside the API are left alone.
 */
export function applyApiHeaders(req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?', 1)[0] as string;
  if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) return false;
  if (path.startsWith(CHAIN_PREFIX)) {
    res.setHeader('cache-control', 'public, max-age=1');
  } else {
    res.setHeader('cache-control', 'no-store, no-cache, must-revalidate, proxy-revalidate');
    res.setHeader('pragma', 'no-cache');
    res.setHeader('expires', '0');
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('access-control-allow-credentials', 'true');
    res.setHeader('vary', 'Origin');
  }
  if (req.method !== 'OPTIONS') return false;
  res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
  const asked = req.headers['access-control-request-headers'];
  if (asked !== undefined) res.setHeader('access-control-allow-headers', asked);
  res.writeHead(204);
  res.end();
  return true;
}
