// A redis-server for the Redis variant of the webhook benchmark: CI's (KUDOS_TEST_REDIS_URL), or a
// new one on a free port when redis-server is installed; none otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function benchRedis() {
  if (process.env.KUDOS_TEST_REDIS_URL)
    return { url: process.env.KUDOS_TEST_REDIS_URL, stop: async () => undefined };
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  // Its own folder: a redis-server writes into its working directory (a dump) otherwise.
  const dir = mkdtempSync(join(tmpdir(), 'kudos-bench-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
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
