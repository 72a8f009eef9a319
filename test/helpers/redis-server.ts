import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real redis-server on 127.0.0.1 that a test can stop and start again (data kept on disk). */
export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts Debian's redis-server (installed by .ci/run) with an append-only file in a temp folder;
 * `extraArgs` are added (e.g. `--enable-debug-command yes` for `DEBUG SLEEP`).
 */
export async function startRedisServer(extraArgs: string[] = []): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'kudos-redis-'));
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          '--dir',
          dir,
          ...extraArgs,
        ],
        { stdio: 'ignore' },
      );
      for (let i = 0; i < 200; i++) {
        if (await ping(port)) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('redis-server did not start (is it installed? .ci/run installs it)');
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
    async close() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** The Redis that .ci/run started (KUDOS_TEST_REDIS_URL), or a new one for this test file. */
export async function sharedRedis(): Promise<{ url: string; close: () => Promise<void> }> {
  const given = process.env.KUDOS_TEST_REDIS_URL;
  if (given) return { url: given, close: async () => undefined };
  const server = await startRedisServer();
  return { url: server.url, close: () => server.close() };
}
