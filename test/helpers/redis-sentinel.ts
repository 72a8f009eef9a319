import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { cli } from './redis-cluster.js';
import { type RedisServer, startRedisServer, waitFor } from './redis-server.js';

/** A master, its replica and a Redis Sentinel watching them, as real redis-server processes. */
export interface RedisSentinelSetup {
  /** The name the sentinel knows the master by. */
  name: string;
  master: RedisServer;
  replica: RedisServer;
  sentinel: RedisServer;
  /** `{ host, port }` of the sentinel, as sentinel clients take it. */
  sentinels: Array<{ host: string; port: number }>;
  /** The port of the master the sentinel names now. */
  masterPort(): Promise<number>;
  /** Waits until the replica is in sync with the master (a write made after this reaches it). */
  synced(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the three. The sentinel (quorum 1) declares a master down after one second without an
 * answer and promotes the replica, so a killed master fails over within a few seconds.
 */
export async function startRedisSentinel(name = 'kudos'): Promise<RedisSentinelSetup> {
  const master = await startRedisServer();
  const replica = await startRedisServer(['--replicaof', '127.0.0.1', String(master.port)]);
  const confDir = mkdtempSync(join(tmpdir(), 'kudos-sentinel-'));
  const conf = join(confDir, 'sentinel.conf');
  writeFileSync(
    conf,
    [
      `sentinel monitor ${name} 127.0.0.1 ${master.port} 1`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  const sentinel = await startRedisServer([], { port: await freePort(), sentinel: conf });
  const setup: RedisSentinelSetup = {
    name,
    master,
    replica,
    sentinel,
    sentinels: [{ host: '127.0.0.1', port: sentinel.port }],
    async masterPort() {
      const answer = await cli(sentinel.port, 'SENTINEL', 'get-master-addr-by-name', name);
      return Number(answer.trim().split('\n')[1]);
    },
    async synced() {
      await waitFor(
        'the replica did not sync',
        async () => {
          const live = [master, replica].filter((n) => n.alive());
          for (const node of live) {
            const replication = await cli(node.port, 'INFO', 'replication');
            if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
              return false;
          }
          // The sentinel knows the replica (it can promote it).
          const replicas = await cli(sentinel.port, 'SENTINEL', 'replicas', name);
          return replicas.includes(String(replica.port)) || replicas.includes(String(master.port));
        },
        1200,
      );
    },
    async close() {
      await Promise.all([sentinel.close(), replica.close(), master.close()]);
      rmSync(confDir, { recursive: true, force: true });
    },
  };
  await setup.synced();
  return setup;
}
