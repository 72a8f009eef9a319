import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster, createSentinel } from 'redis';

/** Where a Redis is: one server, a cluster's seed nodes, or a sentinel and its master's name. */
export type RedisPlace =
  | { topology: 'standalone'; url: string }
  | { topology: 'cluster'; seeds: Array<{ host: string; port: number }> }
  | { topology: 'sentinel'; sentinels: Array<{ host: string; port: number }>; name: string };

export type RedisLibrary = 'node-redis' | 'ioredis';

/** A connected client of either library, as an app would make it, and how to close it. */
export interface ConnectedRedis {
  client: unknown;
  /**
   * What the client itself reported of its servers (an error, a lost or reconnecting node): how a test
   * sees that a fault reached the client even when the client hid it from its commands (ioredis's
   * Cluster queues them through a short failover).
   */
  noticed: string[];
  close(): Promise<void>;
}

/** node-redis: connect() first, then hand the client over; errors go to a listener (an app's log). */
async function nodeRedis(place: RedisPlace): Promise<ConnectedRedis> {
  const client =
    place.topology === 'standalone'
      ? createClient({ url: place.url, disableOfflineQueue: true })
      : place.topology === 'cluster'
        ? createCluster({
            rootNodes: place.seeds.map((s) => ({ url: `redis://${s.host}:${s.port}` })),
            defaults: { disableOfflineQueue: true, socket: { reconnectStrategy: () => 200 } },
          })
        : createSentinel({
            name: place.name,
            sentinelRootNodes: place.sentinels,
            nodeClientOptions: { disableOfflineQueue: true },
          });
  const noticed: string[] = [];
  client.on('error', (error: Error) => noticed.push(`error ${error.message}`));
  await client.connect();
  return {
    client,
    noticed,
    close: async () => {
      client.destroy();
    },
  };
}

/** ioredis: connects by itself; `lazyConnect: false` and a ready wait, as apps usually do. */
async function ioredis(place: RedisPlace): Promise<ConnectedRedis> {
  const client =
    place.topology === 'standalone'
      ? new Redis(place.url)
      : place.topology === 'cluster'
        ? new Cluster(place.seeds)
        : new Redis({ sentinels: place.sentinels, name: place.name });
  const noticed: string[] = [];
  client.on('error', (error: Error) => noticed.push(`error ${error.message}`));
  for (const event of ['node error', '-node', 'reconnecting']) client.on(event, () => noticed.push(event));
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    client.once('end', () => reject(new Error('ioredis could not connect')));
  });
  return {
    client,
    noticed,
    close: async () => {
      client.disconnect();
    },
  };
}

export function connectRedis(library: RedisLibrary, place: RedisPlace): Promise<ConnectedRedis> {
  return library === 'node-redis' ? nodeRedis(place) : ioredis(place);
}
