import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// A test file whose beforeAll starts a process and then hangs past its time limit: when its run is
// over, the process it started is gone (test/setup/end-children.ts, in every test file).

/** Whether a process of this id runs: it exists and is no zombie (an ended child not yet reaped). */
function running(pid: number): boolean {
  let stat = '';
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return !/^\d+ \(.*\) Z/.test(stat);
}

describe('a hook that hangs past its time limit', () => {
  it.each(['forks', 'threads'])(
    'leaves no process behind (pool: %s)',
    async (pool) => {
      const dir = mkdtempSync(join(tmpdir(), 'kudos-hanging-'));
      const pidFile = join(dir, 'pid');
      try {
        const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
          const child = execFile(
            process.execPath,
            [
              'node_modules/vitest/vitest.mjs',
              'run',
              '--config',
              'test/fixtures/hanging-hook/vitest.config.mjs',
            ],
            { env: { ...process.env, KUDOS_HANGING_POOL: pool, KUDOS_HANGING_PID_FILE: pidFile } },
            (error, stdout, stderr) =>
              resolve({ code: error ? (error.code as number) : 0, output: stdout + stderr }),
          );
          child.stdin?.end();
        });
        // The run failed on the hook's time limit, after its process had started.
        expect(run.output).toMatch(/Hook timed out in 3000ms/);
        expect(run.code).not.toBe(0);
        const pid = Number(readFileSync(pidFile, 'utf8'));
        expect(pid).toBeGreaterThan(0);
        expect(running(pid)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
