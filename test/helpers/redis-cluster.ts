import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { type RedisServer, startRedisServer, waitFor } from './redis-server.js';

const run = promisify(execFile);

/** A real Redis Cluster of redis-server processes on 127.0.0.1, made by `redis-cli --cluster create`. */
export interface RedisCluster {
  nodes: RedisServer[];
  /** `{ host, port }` of every node, as cluster clients take their seed nodes. */
  seeds: Array<{ host: string; port: number }>;
  /** The node that serves `key`'s slot as master now. */
  masterOf(key: string): Promise<RedisServer>;
  /**
   * Waits until every live node reports `cluster_state:ok` and sees `masters` masters serving, and
   * every live replica is in sync with its master (a write made after this reaches the replica).
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** One command through redis-cli; '' when the node does not answer. */
export async function cli(port: number, ...args: string[]): Promise<string> {
  try {
    return (await run('redis-cli', ['-p', String(port), ...args], { timeout: 2000 })).stdout;
  } catch {
    return '';
  }
}

/** Answer lines of `CLUSTER NODES` on one node. */
async function clusterNodes(port: number): Promise<string[]> {
  return (await cli(port, 'CLUSTER', 'NODES')).trim().split('\n');
}

/**
 * Starts `masters` masters with `replicas` replicas each (cluster bus on a free port of its own via
 * `cluster-port`), a one-second node timeout so a killed master fails over within seconds.
 */
export async function startRedisCluster({ masters = 3, replicas = 1 } = {}): Promise<RedisCluster> {
  const nodes: RedisServer[] = [];
  for (let i = 0; i < masters * (1 + replicas); i++) {
    nodes.push(
      await startRedisServer([
        '--cluster-enabled',
        'yes',
        '--cluster-port',
        String(await freePort()),
        '--cluster-node-timeout',
        '1000',
        '--cluster-replica-validity-factor',
        '0',
      ]),
    );
  }
  const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
  await run('redis-cli', [
    '--cluster',
    'create',
    ...addresses,
    '--cluster-replicas',
    String(replicas),
    '--cluster-yes',
  ]);
  const live = () => nodes.filter((n) => n.alive());
  const cluster: RedisCluster = {
    nodes,
    seeds: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
    async masterOf(key) {
      const slot = Number((await cli(live()[0]?.port as number, 'CLUSTER', 'KEYSLOT', key)).trim());
      for (const line of await clusterNodes(live()[0]?.port as number)) {
        const [, address, flags, , , , , , ...ranges] = line.split(' ');
        const flagList = flags?.split(',') ?? [];
        if (!flagList.includes('master') || flagList.some((f) => f.startsWith('fail'))) continue;
        const owns = ranges.some((r) => {
          const [from, to = from] = r.split('-').map(Number);
          return slot >= (from as number) && slot <= (to as number);
        });
        const port = Number(address?.split(':')[1]?.split('@')[0]);
        const node = nodes.find((n) => n.port === port);
        if (owns && node) return node;
      }
      throw new Error(`no master serves ${key}`);
    },
    async settled() {
      await waitFor(
        'the cluster did not settle',
        async () => {
          for (const node of live()) {
            const info = await cli(node.port, 'CLUSTER', 'INFO');
            if (!info.includes('cluster_state:ok')) return false;
            const lines = await clusterNodes(node.port);
            const serving = lines.filter((l) => {
              const flags = l.split(' ')[2]?.split(',') ?? [];
              return (
                flags.includes('master') &&
                !flags.some((f) => f.startsWith('fail')) &&
                l.split(' ').length > 8
              );
            });
            if (serving.length !== masters) return false;
            const replication = await cli(node.port, 'INFO', 'replication');
            if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
              return false;
          }
          return true;
        },
        1200,
      );
    },
    async close() {
      await Promise.all(nodes.map((n) => n.close()));
    },
  };
  await cluster.settled();
  return cluster;
}
