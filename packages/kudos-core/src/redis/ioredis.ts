import type { KudosRedisAdapter } from './adapter.js';
import { atMostEvery } from './throttle.js';

type Call = (command: string, ...args: string[]) => Promise<unknown>;

/** Shortest pause between two slot-map reads a failure asks for. */
const REFRESH_EVERY_MS = 500;

/**
 * ioredis `Redis` (standalone, or following a master through Sentinel) and `Cluster`: `call()`
 * sends a raw command; a Cluster routes it by the keys it finds in it (EVALSHA's included). A
 * Cluster reads its slot map again on a redirection or on its own timer; after a failure or a
 * silence (a master that died answers nothing) it is asked to read it at once, at most every 500 ms,
 * so the replica that took over is found sooner.
 */
export function ioredisAdapter(client: Record<string, unknown>): KudosRedisAdapter {
  const call = (client.call as Call).bind(client);
  const cluster = client.isCluster === true;
  const refresh = cluster ? (client.refreshSlotsCache as unknown) : undefined;
  const options = (client.options ?? {}) as {
    host?: unknown;
    port?: unknown;
    name?: unknown;
    sentinels?: unknown;
  };
  return {
    send: ([command, ...args]) => call(command as string, ...args),
    server: Array.isArray(options.sentinels)
      ? 'the master its sentinels name'
      : cluster
        ? undefined
        : `${String(options.host ?? 'localhost')}:${String(options.port ?? 6379)}`,
    eachMaster:
      cluster && typeof client.nodes === 'function'
        ? async (args) => {
            const masters = (client.nodes as (role: string) => Array<Record<string, unknown>>).call(
              client,
              'master',
            );
            return Promise.all(
              masters.map(async (node) => {
                const o = (node.options ?? {}) as { host?: unknown; port?: unknown };
                const [command, ...rest] = args;
                const reply = await (node.call as Call).call(node, command as string, ...rest);
                return { node: `${String(o.host)}:${String(o.port)}`, reply };
              }),
            );
          }
        : undefined,
    masters:
      cluster && typeof client.nodes === 'function'
        ? () =>
            (client.nodes as (role: string) => Array<Record<string, unknown>>)
              .call(client, 'master')
              .map((node) => {
                const o = (node.options ?? {}) as { host?: unknown; port?: unknown };
                return `${String(o.host)}:${String(o.port)}`;
              })
              .sort()
              .join(',')
        : undefined,
    unavailable:
      typeof refresh === 'function'
        ? atMostEvery(REFRESH_EVERY_MS, () => {
            try {
              refresh.call(client);
            } catch {
              // A refresh already running, or a client closing: its own timer reads the map later.
            }
          })
        : undefined,
  };
}
