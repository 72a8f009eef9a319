import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli } from '../../../../test/helpers/cli.js';

// One emulator per state file, with real `kudos-emulator` processes: several started at one moment
// on a stale lock, and an emulator restarted as PID 1 (a container) over the lock it left.

/** The pid of a process that has exited: a dead holder. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(done.stdout.trim());
}

describe('the state-file lock holds', () => {
  const running: ChildProcess[] = [];
  afterEach(() => afterEachKill(running.splice(0)));

  it('three emulators started at one moment on a stale lock: exactly one gets the file, 10 times out of 10', async () => {
    for (let trial = 0; trial < 10; trial++) {
      const file = join(mkdtempSync(join(tmpdir(), 'kudos-lock-race-')), 'state.json');
      writeFileSync(`${file}.lock`, String(deadPid()));
      const runs = [0, 1, 2].map(() => startCli(['--port', '0', '--quiet', '--state', file]));
      running.push(...runs.map((r) => r.child));
      const outputs = await Promise.all(runs.map((r) => r.output));
      const serving = outputs.filter((o) => o.includes('authURL:'));
      expect(serving, `trial ${trial}: ${outputs.join('\n---\n')}`).toHaveLength(1);
      const refused = outputs.filter((o) => o.includes('is in use by another kudos-emulator'));
      expect(refused).toHaveLength(2);
      const winner = runs[outputs.findIndex((o) => o.includes('authURL:'))]?.child;
      expect(readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(winner?.pid));
      expect(refused.every((o) => o.includes(`(process ${winner?.pid},`))).toBe(true);
      await afterEachKill(runs.map((r) => r.child));
    }
  }, 120_000);

  it('an emulator restarted as PID 1 (a PID namespace, as in a container) takes over the lock naming PID 1', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kudos-lock-pid1-')), 'state.json');
    writeFileSync(`${file}.lock`, '1'); // left by the previous PID 1, killed with the container
    const run = startCli(
      ['--port', '0', '--quiet', '--state', file],
      // --kill-child: when unshare ends (the test kills it), the emulator inside, its PID 1, ends too.
      ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'],
    );
    running.push(run.child);
    const output = await run.output;
    expect(output).toContain('authURL:');
    expect(output).not.toContain('in use');
    expect(readFileSync(`${file}.lock`, 'utf8').trim()).toBe('1'); // its own PID 1 now
  });

  it('still refuses a second emulator while the first (a live process) holds the file, and frees it on exit', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kudos-lock-live-')), 'state.json');
    const first = startCli(['--port', '0', '--quiet', '--state', file]);
    running.push(first.child);
    expect(await first.output).toContain('authURL:');
    const second = startCli(['--port', '0', '--quiet', '--state', file]);
    running.push(second.child);
    expect(await second.output).toContain(`is in use by another kudos-emulator (process ${first.child.pid},`);
    await afterEachKill([first.child], 'SIGTERM');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

async function afterEachKill(children: ChildProcess[], signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
          child.once('exit', resolve);
          child.kill(signal);
        }),
    ),
  );
}
