import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { type KudosRefusal, kudosWebhook } from '../../../packages/kudos-payments/src/index.js';
import { RedisDedupeStore } from '../../../packages/kudos-payments/src/redis/index.js';
import { PAYMENT_USERS } from '../../helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../helpers/listen.js';
import { type ConnectedRedis, connectRedis, type RedisLibrary } from '../../helpers/redis-clients.js';
import { cli, type RedisCluster, startRedisCluster } from '../../helpers/redis-cluster.js';

// A failover on a 3+3 Redis Cluster to a replica configured to evict (its maxmemory-policy set
// otherwise than its master's): the store reads the policy again once the masters changed, long
// before its minute-long schedule, refuses every command while the evicting master serves (503 to
// the emulator's real sender, told once, health false naming the node and the policy), and once it is
// fixed every refused payment is processed exactly once.

const SECRET = 'evicting-replica-secret-0123';

/** The suite, run from failover.test.ts after the others (one cluster at a time on a small machine). */
export function evictingReplicaSuite(): void {
  describe('a failover to an evicting replica on a 3+3 cluster', () => {
    let cluster: RedisCluster | undefined;
    let redis: ConnectedRedis | undefined;
    let kudos: KudosEmulator | undefined;
    const servers: Listening[] = [];
    afterEach(async () => {
      // The cluster's processes first, whatever the rest does: a client of a cluster that lost a
      // master may refuse to quit, and must not leave six redis-server processes running.
      await cluster?.close();
      cluster = undefined;
      await kudos?.close();
      for (const server of servers.splice(0)) await server.close();
      await redis?.close().catch(() => undefined);
    });

    /** The ports of the nodes that are replicas now. */
    async function replicas(started: RedisCluster): Promise<number[]> {
      const ports: number[] = [];
      for (const node of started.nodes.filter((n) => n.alive())) {
        if ((await cli(node.port, 'ROLE')).startsWith('slave')) ports.push(node.port);
      }
      return ports;
    }

    it.each(['node-redis', 'ioredis'] as RedisLibrary[])(
      '%s: refused once the replica serves, told once, and nothing lost once it is fixed',
      async (library) => {
        cluster = await startRedisCluster({ masters: 3, replicas: 1 });
        redis = await connectRedis(library, { topology: 'cluster', seeds: cluster.seeds });
        const prefix = `evicting-replica:${randomUUID()}:`;
        const handled = new Map<string, number>();
        const errors: KudosRefusal[] = [];
        const receiver = (store: RedisDedupeStore) =>
          kudosWebhook({
            secret: SECRET,
            store,
            leaseMs: 2000,
            onNotification: (n) => {
              if (n.tx.status === 'success') handled.set(n.tx.txHash, (handled.get(n.tx.txHash) ?? 0) + 1);
            },
            onError: (error) => {
              errors.push(error);
            },
          });
        // The default schedule (a reading a minute): only the failover can make it read again now.
        const hook = receiver(
          new RedisDedupeStore(redis.client as never, { prefix, commandTimeoutMs: 1000 }),
        );
        const first = await listenLocal(http.createServer((req, res) => hook(req, res)));
        servers.push(first);
        kudos = await startKudosEmulator({
          users: PAYMENT_USERS,
          agents: [{ id: 'shop-agent', webhookURL: `${first.url}/?token=${SECRET}` }],
          paymentDelayMs: 5,
          webhook: { attempts: 3, retryDelayMs: 200, timeoutMs: 3000 },
        });
        const pay = () =>
          (kudos as KudosEmulator).pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' }).txHash;

        const before = [pay(), pay(), pay()];
        await kudos.idle();
        expect(before.map((h) => handled.get(h))).toEqual([1, 1, 1]);

        // Every replica evicts; the master that serves the store's first shard dies; its replica takes over.
        const replicaPorts = await replicas(cluster);
        for (const port of replicaPorts) {
          expect(await cli(port, 'CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru')).toContain('OK');
        }
        const victim = await cluster.masterOf(`${prefix}{0}`);
        await victim.kill();
        await cluster.settled();
        const stillReplicas = await replicas(cluster);
        const promoted = replicaPorts.filter((port) => !stillReplicas.includes(port));
        expect(promoted).toHaveLength(1);

        // Deliveries until the store refuses for the policy (the client first finds the new master: a
        // node-redis cluster still names the dead one until its slot map is read again).
        const during: string[] = [];
        await expect
          .poll(
            async () => {
              during.push(pay());
              await kudos?.idle();
              return (await hook.status()).storeError ?? '';
            },
            { timeout: 30_000, interval: 500 },
          )
          .toContain('has maxmemory-policy allkeys-lru');
        const health = await hook.status();
        expect(health.storeOk).toBe(false);
        expect(health.storeError).toContain('has maxmemory-policy allkeys-lru');
        expect(health.storeError).toContain(`127.0.0.1:${promoted[0]} has maxmemory-policy`);
        const refusedAfter = [pay(), pay(), pay()];
        await kudos.idle();
        for (const hash of refusedAfter) {
          const answers = kudos.deliveries.filter((d) => d.txHash === hash).map((d) => d.responseStatus);
          expect(answers.length).toBeGreaterThan(0);
          expect(answers.every((status) => status === 503)).toBe(true);
          expect(handled.get(hash)).toBeUndefined();
        }
        const told = errors.filter((e) => e.message.includes('maxmemory-policy allkeys-lru'));
        expect(told).toHaveLength(1);

        // Fixed on every node; the app restarts (a fresh store reads the policy at its first call);
        // what was refused comes again: each payment processed exactly once.
        for (const node of cluster.nodes.filter((n) => n.alive())) {
          await cli(node.port, 'CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
        }
        const restarted = receiver(
          new RedisDedupeStore(redis.client as never, { prefix, commandTimeoutMs: 1000 }),
        );
        const second = await listenLocal(http.createServer((req, res) => restarted(req, res)));
        servers.push(second);
        kudos.setWebhook('shop-agent', `${second.url}/?token=${SECRET}`);
        const all = [...before, ...during, ...refusedAfter];
        for (const delivery of kudos.deliveries.filter((d) => d.attempt === 1 && all.includes(d.txHash))) {
          kudos.resend(delivery.id);
        }
        await kudos.idle();
        await restarted.redrive();
        expect(all.map((h) => handled.get(h) ?? 0)).toEqual(Array(all.length).fill(1));
        expect((await restarted.status()).storeOk).toBe(true);
      },
      120_000,
    );
  });
}
