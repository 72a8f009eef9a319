import type { KudosRedisAdapter } from './adapter.js';
import { atMostEvery } from './throttle.js';

// The three node-redis shapes (v4 and newer). They are typed here by the little of them the Kudos packages
// call, so that `redis` stays an optional peer the published types never import.
type Send = (...args: unknown[]) => Promise<unknown>;

/** `host:port` of a node-redis client's options (its `url` without credentials, or its socket). */
function serverOf(options: unknown): string | undefined {
  const o = (options ?? {}) as { url?: unknown; socket?: { host?: unknown; port?: unknown } };
  if (typeof o.url === 'string' && URL.canParse(o.url)) return new URL(o.url).host;
  const { host, port } = o.socket ?? {};
  return typeof host === 'string' || typeof port === 'number'
    ? `${host ?? 'localhost'}:${port ?? 6379}`
    : undefined;
}

/** `createClient()` (or anything with `sendCommand(args)`): one server, no routing. */
export function nodeRedisAdapter(client: Record<string, unknown>): KudosRedisAdapter {
  const send = (client.sendCommand as Send).bind(client);
  return { send: (args) => send(args), server: serverOf(client.options) };
}

/** `createSentinel()`: the sentinel client follows the master itself; writes go to it. */
export function nodeRedisSentinelAdapter(client: Record<string, unknown>): KudosRedisAdapter {
  const send = (client.sendCommand as Send).bind(client);
  return { send: (args) => send(false, args), server: 'the master its sentinels name' };
}

/** Shortest pause between two slot-map reads a failure asks for. */
const REDISCOVER_EVERY_MS = 500;

/**
 * `createCluster()`: commands are routed by their first key. node-redis reads the slot map again
 * only when a node answers MOVED or ASK, and a master that died answers nothing: its slots would
 * stay pointed at it after a replica took over. So a failure or a silence asks the cluster to read
 * the map again (from a node that still answers, else its root nodes), at most every 500 ms.
 */
export function nodeRedisClusterAdapter(cluster: Record<string, unknown>): KudosRedisAdapter {
  const send = (cluster.sendCommand as Send).bind(cluster);
  return {
    send: (args, key) => send(key, false, args),
    unavailable: atMostEvery(REDISCOVER_EVERY_MS, () => rediscover(cluster)),
    eachMaster:
      typeof cluster.nodeClient === 'function' && Array.isArray(cluster.masters)
        ? async (args) => {
            const masters = cluster.masters as Array<{ address?: unknown }>;
            const nodeClient = cluster.nodeClient as (node: unknown) => Promise<{ sendCommand: Send }>;
            return Promise.all(
              masters.map(async (node) => ({
                node: String(node.address),
                reply: await (await nodeClient.call(cluster, node)).sendCommand(args),
              })),
            );
          }
        : undefined,
    masters: () => addresses(cluster.masters),
  };
}

/** The addresses of node-redis's cluster nodes (`{ address }` each), sorted and joined. */
function addresses(nodes: unknown): string {
  if (!Array.isArray(nodes)) return '';
  return nodes
    .map((node) => String((node as { address?: unknown }).address))
    .sort()
    .join(',');
}

/** Asks node-redis's slot map to rediscover (an internal it uses on MOVED), when it has one. */
function rediscover(cluster: Record<string, unknown>): void {
  const slots = cluster._slots as { rediscover?: (from: unknown) => Promise<void> } | undefined;
  if (typeof slots?.rediscover !== 'function') return;
  const nodes = [...((cluster.masters as unknown[]) ?? []), ...((cluster.replicas as unknown[]) ?? [])];
  const clients = nodes
    .map((node) => (node as { client?: { isReady?: boolean } }).client)
    .filter((client) => client !== undefined);
  // From a node that answers; else from any (its read fails, and node-redis falls back to the root
  // nodes the cluster was created with).
  const from = clients.find((client) => client.isReady === true) ?? clients[0];
  if (from) slots.rediscover.call(slots, from).catch(() => undefined);
}
