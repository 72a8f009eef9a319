import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { endWithTestFile } from './children.js';
import { type HandedPort, portZeroEnv, reportedPort } from './handed-port.js';
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
 * URL before it listens (its return page): it binds port 0 itself and puts its port in the URLs of
 * its environment that say `{PORT}` (SHOP_URL, by default `http://127.0.0.1:{PORT}`; see
 * listen-socket.mjs). With `handed`, it listens on the socket the test bound and handed it instead
 * (for a test that must name its URL to another process before it starts). A variable set to
 * `undefined` is left out (a snippet's own default instead of the test's secret).
 */
export async function runSnippet(file: string, env: Record<string, string | undefined>, handed?: HandedPort) {
  const template = env.SHOP_URL ?? (handed ? `http://127.0.0.1:${handed.port}` : 'http://127.0.0.1:{PORT}');
  const child: ChildProcess = spawn(process.execPath, [...(handed?.nodeArgs ?? []), file], {
    env: {
      ...process.env,
      KUDOS_WEBHOOK_SECRET: SNIPPET_SECRET,
      ...env,
      SHOP_URL: template,
      ...(handed ? handed.env : portZeroEnv()),
    },
    stdio: handed ? handed.stdio : ['ignore', 'pipe', 'pipe'],
  });
  handed?.release();
  endWithTestFile(child);
  const shop = { url: template, child, output: '' };
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
    const port = handed?.port ?? reportedPort(shop.output);
    if (port !== undefined) shop.url = template.replaceAll('{PORT}', String(port));
    if (port !== undefined && (await fetch(`${shop.url}/webhooks/kudos`).catch(() => undefined))) return shop;
    if (exited || Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`${file} did not listen${exited ? ' (it exited)' : ''}: ${shop.output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
