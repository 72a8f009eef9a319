// CPU pinning for the login section: on a small machine the app under test, the token server and
// the load generator share the cores, and whichever the scheduler favours in a run sets that run's
// figure. With `taskset` (Linux), the apps get the last core to themselves and everything else
// the others, so that a run's requests/s is the app's own cost. Without it, nothing is pinned.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** The cores as `taskset -c` lists them: the apps', and the rest's. Undefined when pinning is not possible. */
export function pinning() {
  const cores = os.availableParallelism();
  if (process.platform !== 'linux' || cores < 2) return undefined;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { apps: String(cores - 1), rest: cores === 2 ? '0' : `0-${cores - 2}` };
}

/** Runs `fn` with this process on `cores`, and puts it back where it was afterwards. */
export async function onCores(cores, fn) {
  const before = /: (\S+)$/.exec(
    execFileSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' }).trim(),
  )?.[1];
  execFileSync('taskset', ['-cp', cores, String(process.pid)], { stdio: 'ignore' });
  try {
    return await fn();
  } finally {
    if (before) execFileSync('taskset', ['-cp', before, String(process.pid)], { stdio: 'ignore' });
  }
}
