import { createServer } from 'node:net';

/** The preload that makes a child's listen() take the socket handed to it (listen-socket.mjs). */
const PRELOAD = new URL('./listen-socket.mjs', import.meta.url).href;

/** A socket bound to port 0 and listening, to hand to a child process, and its port. */
export interface HandedPort {
  port: number;
  /** `node` arguments before the program: the preload. */
  nodeArgs: string[];
  /** What the child's spawn() adds: its environment and its stdio (the socket as fd 3). */
  env: { PORT: string; KUDOS_TEST_LISTEN_FD: string };
  stdio: ['ignore', 'pipe', 'pipe', number];
  /** Closes the test's own copy of the socket, once the child holds it (the port stays the child's). */
  release(): void;
}

/**
 * Binds port 0 for a child process that takes its port from the environment: the test knows the
 * port before the child starts (for a URL it must be given), and the socket goes to the child as it
 * is, never closed in between: no other program can take the port on a busy machine.
 */
export function handPort(): Promise<HandedPort> {
  return new Promise((resolve, reject) => {
    // Released as soon as the child is spawned: no client connects before, so the test's copy
    // accepts nothing; connections wait in the socket's queue for the child.
    const server = createServer();
    server.once('error', reject);
    // No host, as `app.listen(port)` binds: every address, so that `localhost` reaches it by IPv4 or IPv6.
    server.listen({ port: 0 }, () => {
      const { port } = server.address() as { port: number };
      const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
      resolve({
        port,
        nodeArgs: ['--import', PRELOAD],
        env: { PORT: String(port), KUDOS_TEST_LISTEN_FD: '3' },
        stdio: ['ignore', 'pipe', 'pipe', fd],
        release: () => server.close(),
      });
    });
  });
}

/**
 * What a child's environment needs to bind port 0 itself, whatever runs it (node, or a runner such
 * as tsx that starts node again): `{PORT}` in any other value of its environment (a URL it must know
 * before it listens) becomes its port. Read the port with {@link reportedPort}.
 */
export function portZeroEnv(): { NODE_OPTIONS: string; KUDOS_TEST_PORT_ZERO: '1' } {
  // Added to the options vitest's config set (they quiet node:sqlite's warning in every process).
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${PRELOAD}`.trim(),
    KUDOS_TEST_PORT_ZERO: '1',
  };
}

/** The port a child started with {@link portZeroEnv} listens on, once it said so. */
export function reportedPort(output: string): number | undefined {
  const found = /^kudos-test-listening (\d+)$/m.exec(output);
  return found ? Number(found[1]) : undefined;
}
