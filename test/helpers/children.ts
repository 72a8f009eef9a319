import type { ChildProcess } from 'node:child_process';

// The processes a test file started (apps, emulators, redis-servers, snippets), ended with the file
// whatever cut it short: a hook past its time limit never reaches its own cleanup, and vitest then
// runs the afterAll of test/setup/end-children.ts, which ends what is still running here.

const started = new Map<ChildProcess, { group: boolean }>();

/**
 * Ends `child` with this test file if nothing ended it before; `group` for a child spawned
 * `detached` (a shell and what it started): its whole process group is ended.
 */
export function endWithTestFile<T extends ChildProcess>(child: T, { group = false } = {}): T {
  started.set(child, { group });
  child.once('exit', () => started.delete(child));
  return child;
}

/** Ends (SIGKILL) every child of this file still running. */
export function endChildren(): void {
  for (const [child, { group }] of started) {
    try {
      if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  started.clear();
}

// A worker that exits without its hooks (its process ended) still ends them.
process.once('exit', endChildren);
