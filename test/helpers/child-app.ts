import { type ChildProcess, spawn } from 'node:child_process';
import { endWithTestFile } from './children.js';

/** An app of a test running as its own process (killed by the test with SIGKILL, started again). */
export interface ChildApp {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>`, the port it printed. */
  url: string;
  /** Resolves once the process exited. */
  exited: Promise<unknown>;
  /** What it printed so far, stdout and stderr. */
  output: () => string;
}

/**
 * Starts `file` with Node and `env` (on top of this process's), and resolves once it printed
 * `listening on <port>`; rejects with its output when it exits first.
 */
export async function startChildApp(file: string, env: Record<string, string>): Promise<ChildApp> {
  const child = endWithTestFile(
    spawn(process.execPath, [file], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let text = '';
  const collect = (chunk: Buffer) => {
    text += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const found = /listening on (\d+)/.exec(text);
      if (found) {
        clearInterval(timer);
        resolve(found[1] as string);
      }
    }, 10);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`${file} exited before it listened: ${text}`));
    });
  });
  return { child, url: `http://127.0.0.1:${port}`, exited, output: () => text };
}
