// Fragment: the same three stores on ioredis, on Sentinel or on a Redis Cluster; pass the client
// your app already has (the adapter is chosen by what it is).
import { Cluster, Redis } from 'ioredis';
import { RedisDedupeStore } from 'kudos-payments/redis';
import { RedisRefreshLock, RedisTokenStore } from 'passport-kudos/redis';
import { createCluster } from 'redis';

// ioredis on one server; `new Redis({ sentinels: [{ host, port }], name: 'mymaster' })` for Sentinel.
const ioredis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
ioredis.on('error', (error: Error) => console.warn(`redis: ${error.message}`));
export const dedupe = new RedisDedupeStore(ioredis);

// An ioredis Cluster: give it a few of the cluster's nodes; it finds the rest.
const nodes = (process.env.REDIS_CLUSTER_NODES ?? '127.0.0.1:7000').split(',');
const ioCluster = new Cluster(
  nodes.map((node) => ({ host: node.split(':')[0], port: Number(node.split(':')[1]) })),
);
ioCluster.on('error', (error: Error) => console.warn(`redis cluster: ${error.message}`));
export const clusterDedupe = new RedisDedupeStore(ioCluster);

// node-redis on the same cluster (createSentinel is passed the same way).
const cluster = createCluster({
  rootNodes: nodes.map((node) => ({ url: `redis://${node}` })),
  defaults: { disableOfflineQueue: true },
});
cluster.on('error', (error: Error) => console.warn(`redis cluster: ${error.message}`));
await cluster.connect();
export const tokens = new RedisTokenStore(cluster);
export const lock = new RedisRefreshLock(cluster);
