// redis-server processes for the benchmarks: CI's (KUDOS_TEST_REDIS_URL) or new ones on free ports
// when redis-server is installed; none otherwise. Each in a temp folder of its own: a redis-server
// writes into its working directory (a dump, a cluster config) otherwise.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts one redis-server with `args`; resolves `{ port, url, stop }` once it accepts connections. */
async function startRedis(args = []) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'kudos-bench-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...args,
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.end(() => resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const installed = () => spawnSync('redis-server', ['--version']).status === 0;

export async function benchRedis() {
  if (process.env.KUDOS_TEST_REDIS_URL)
    return { url: process.env.KUDOS_TEST_REDIS_URL, stop: async () => undefined };
  return installed() ? startRedis() : undefined;
}

/** A new server of the bench's own (its memory and command counts are the bench's alone). */
export async function benchRedisServer() {
  return installed() ? startRedis() : undefined;
}

/** A Redis Cluster of `masters` masters (no replicas), or undefined without redis-server. */
export async function benchRedisCluster(masters = 3) {
  if (!installed()) return undefined;
  const nodes = [];
  for (let i = 0; i < masters; i++) {
    nodes.push(await startRedis(['--cluster-enabled', 'yes', '--cluster-port', String(await freePort())]));
  }
  await run('redis-cli', [
    '--cluster',
    'create',
    ...nodes.map((n) => `127.0.0.1:${n.port}`),
    '--cluster-yes',
  ]);
  for (let i = 0; i < 200; i++) {
    const states = await Promise.all(
      nodes.map((n) => run('redis-cli', ['-p', String(n.port), 'CLUSTER', 'INFO']).then((r) => r.stdout)),
    );
    if (states.every((s) => s.includes('cluster_state:ok'))) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { nodes, stop: () => Promise.all(nodes.map((n) => n.stop())) };
}
