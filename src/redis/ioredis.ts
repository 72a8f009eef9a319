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
  const refresh = client.isCluster === true ? (client.refreshSlotsCache as unknown) : undefined;
  return {
    send: ([command, ...args]) => call(command as string, ...args),
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
