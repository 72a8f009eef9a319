import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { endWithTestFile } from './children.js';
import { freePort } from './free-port.js';

/** A real redis-server on 127.0.0.1 that a test can stop and start again (data kept on disk). */
export interface RedisServer {
  url: string;
  port: number;
  /** The folder that holds its files (append-only file, cluster or sentinel config). */
  dir: string;
  stop(): Promise<void>;
  /** Whether its process runs. */
  alive(): boolean;
  /** Ends it at once, as a crash would (SIGKILL): nothing is flushed or handed over. */
  kill(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Sends one inline command and resolves the answer's first line ('' when nobody answers). */
export function redisLine(port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${command}\r\n`));
    let text = '';
    socket.on('data', (d) => {
      text += d.toString();
      if (text.includes('\r\n')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.once('error', () => resolve(''));
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve(text);
    });
  });
}

export async function waitFor(what: string, check: () => Promise<boolean>, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what} (is redis-server installed? .ci/run installs it)`);
}

/**
 * Starts Debian's redis-server (installed by .ci/run) with an append-only file in a temp folder;
 * `extraArgs` are added (e.g. `--enable-debug-command yes` for `DEBUG SLEEP`). With `sentinel`, the
 * same binary runs as a Redis Sentinel (its config file in the temp folder).
 */
export async function startRedisServer(
  extraArgs: string[] = [],
  { port: given, sentinel }: { port?: number; sentinel?: string } = {},
): Promise<RedisServer> {
  const port = given ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'kudos-redis-'));
  let child: ChildProcess | undefined;
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    async start() {
      const base = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir];
      const args = sentinel
        ? [sentinel, '--sentinel', ...base, ...extraArgs]
        : [...base, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', ...extraArgs];
      child = endWithTestFile(spawn('redis-server', args, { stdio: 'ignore' }));
      await waitFor('redis-server did not start', async () =>
        (await redisLine(port, 'PING')).startsWith('+PONG'),
      );
    },
    alive: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    async close() {
      await end('SIGKILL');
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

/**
 * A redis-server of the describe block's own and a node-redis client connected to it: started before
 * the block's tests, closed after them. Read `client` and `server` inside the tests.
 */
export function redisWithClient(args: string[] = []) {
  const served = {
    server: undefined as unknown as RedisServer,
    client: undefined as unknown as ReturnType<typeof createClient>,
  };
  beforeAll(async () => {
    served.server = await startRedisServer(args);
    served.client = createClient({ url: served.server.url });
    await served.client.connect();
  });
  afterAll(async () => {
    await served.client?.quit();
    await served.server?.close();
  });
  return served;
}
