// Child processes for the benchmark: each app prints "ready <port>" once listening on 127.0.0.1.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('..', import.meta.url));

/** Every app started and not stopped yet: ended with the benchmark, however it ends. */
const running = new Set();
const endAll = () => {
  for (const child of running) child.kill('SIGKILL');
};
process.once('exit', endAll);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    endAll();
    process.exit(1);
  });
}

/**
 * Starts `bench/apps/<name>.mjs` with env and resolves with its port and a stop function; on
 * `cores` (a `taskset -c` list, see pin.mjs) when given.
 * @param {string} name
 * @param {Record<string, string>} [env]
 * @param {string} [cores]
 */
export function startApp(name, env = {}, cores = undefined) {
  const script = [process.execPath, `${here}apps/${name}.mjs`];
  // taskset runs node in its own place (exec): the child's pid is node's.
  const [command, ...args] = cores === undefined ? script : ['taskset', '-c', cores, ...script];
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), 15_000);
    child.stdout.on('data', (chunk) => {
      text += chunk.toString();
      const match = /ready (\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve({
          port: Number(match[1]),
          pid: child.pid,
          stop: () =>
            new Promise((done) => {
              child.once('exit', done);
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}
