import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { MACHINE_WAIT_MS } from './machine-wait.js';

// A snippet of docs/snippets compiled as it is and run as its own process, as a reader would run it.

const OUT = 'test-results/snippets';

/** The webhook secret a snippet's receiver is started with (its `KUDOS_WEBHOOK_SECRET`). */
export const SNIPPET_SECRET = 'readme-webhook-secret-0123456789';

/** Compiles a snippet of docs/snippets into OUT (inside the repository: `passport-kudos` is this build). */
export function compile(name: string): string {
  mkdirSync(OUT, { recursive: true });
  const config = join(OUT, `tsconfig.${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      extends: '../../docs/snippets/tsconfig.json',
      compilerOptions: { noEmit: false, outDir: '.', rootDir: '../../docs/snippets' },
      include: [],
      files: [`../../docs/snippets/${name}.ts`],
    }),
  );
  const tsc = () =>
    execFileSync(process.execPath, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', config], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  try {
    tsc();
  } catch {
    // Once more, for a failure of the machine's (a compiler cut short on a loaded machine); a type
    // error fails again, with what the compiler said.
    try {
      tsc();
    } catch (error) {
      const {
        stdout = '',
        stderr = '',
        signal,
      } = error as { stdout?: string; stderr?: string; signal?: string };
      throw new Error(`tsc -p ${config} failed${signal ? ` (${signal})` : ''}:\n${stdout}${stderr}`);
    }
  }
  return join(OUT, `${name}.js`);
}

/**
 * Runs a compiled snippet as its own process; collects what it prints. A snippet must know its own
 * URL before it listens (its return page), so it is given a free port: when another process took that
 * port in between (EADDRINUSE), it is started again on another one, up to three times.
 */
export async function runSnippet(file: string, env: Record<string, string>, port?: number) {
  for (let tries = 1; ; tries++) {
    try {
      return await startSnippet(file, env, port ?? (await freePort()));
    } catch (error) {
      const taken = error instanceof Error && error.message.includes('EADDRINUSE');
      if (!taken || port !== undefined || tries >= 3) throw error;
    }
  }
}

/** Every snippet process started by this test file and still running: ended when the file's process ends, whatever cut a test or hook short. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function startSnippet(file: string, env: Record<string, string>, port: number) {
  const url = env.SHOP_URL ?? `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [file], {
    env: { ...process.env, PORT: String(port), KUDOS_WEBHOOK_SECRET: SNIPPET_SECRET, ...env, SHOP_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const shop = { url, child, output: '' };
  child.stdout?.on('data', (c: Buffer) => {
    shop.output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    shop.output += c.toString();
  });
  // Wait until it listens (it answers a GET of the webhook with 404 or 405): as long as a busy
  // machine may take to start it, and no longer than it lives.
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (const end = Date.now() + MACHINE_WAIT_MS; ; ) {
    if (await fetch(`${url}/webhooks/kudos`).catch(() => undefined)) return shop;
    if (exited || Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`${file} did not listen on ${url}${exited ? ' (it exited)' : ''}: ${shop.output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
