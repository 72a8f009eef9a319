import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { endWithTestFile } from './children.js';

/** The command as installed: the built bin of package.json (npm test builds before testing). */
export const CLI = join(process.cwd(), 'packages/kudos-emulator/dist/cjs/cli.js');

/** A started `kudos-emulator`: its process, its output once the banner is complete, its exit. */
export interface StartedEmulator {
  child: ChildProcess;
  output: Promise<string>;
  exit: Promise<number | null>;
}

/**
 * Starts the real bin (through `prefix`, a command such as `unshare --pid --fork`, when given; `bin`:
 * another install's, such as a packed tarball's); `output` resolves when the banner is printed, or the
 * process ends.
 */
export function startCli(args: string[], prefix: string[] = [], bin = CLI): StartedEmulator {
  const [command = process.execPath, ...before] = prefix.length ? prefix : [process.execPath];
  const argv = prefix.length ? [...before, process.execPath, bin, ...args] : [bin, ...args];
  const child = endWithTestFile(spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let text = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output = new Promise<string>((resolve) => {
    const collect = (c: Buffer) => {
      text += c.toString();
      if (text.includes('kudos-emulator --help for their options')) resolve(text);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    exit.then(() => resolve(text));
  });
  return { child, output, exit };
}

/** The authURL a banner printed. */
export function authURLOf(banner: string): string {
  return /authURL:\s+(\S+)/.exec(banner)?.[1] ?? '';
}

/** Runs one subcommand of the real bin to its end: stdout, stderr and the exit code. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 30_000, env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ stdout, stderr, code });
    });
  });
}
