import { spawn } from 'node:child_process';
import { endWithTestFile } from './children.js';
import { MACHINE_WAIT_MS } from './machine-wait.js';

// A README's shell recipe, run as its reader runs it: its `export` lines and `A=1 command` prefixes
// are the environment, its other lines the commands, each taken as written.

/** The `sh` block of `markdown` whose text holds `marker`: its environment and its commands. */
export function shellRecipe(
  markdown: string,
  marker: string,
): { env: Record<string, string>; commands: string[] } {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const block = blocks.find((text) => text.includes(marker)) ?? '';
  const lines = block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'));
  const env: Record<string, string> = {};
  const commands = lines.flatMap((line) => {
    const [, exported] = /^export (.*?)(\s+#.*)?$/.exec(line) ?? [];
    for (const [, name, value] of (exported ?? line).matchAll(/(?:^|\s)(\w+)=(\S+)(?=\s|$)/g)) {
      if (exported !== undefined || line.startsWith(`${name}=`)) env[name as string] = value as string;
    }
    return exported !== undefined ? [] : [line.replace(/^(\w+=\S+\s+)+/, '').replace(/\s+#.*$/, '')];
  });
  return { env, commands };
}

/** An emulator started from a README's `npx kudos-emulator ...` line. */
export interface EmulatorFromLine {
  /** Its origin, as its banner prints it (`http://localhost:PORT`). */
  authURL: string;
  banner(): string;
  stop(): Promise<void>;
}

/**
 * Runs a README's `npx kudos-emulator ...` line through `sh`, as written, with the workspace's
 * emulator for `npx kudos-emulator` and `--port 0 --quiet` added: the one change, a free port for
 * its 4000 (the line's other URLs are the caller's to rewrite). Answers once its banner is out.
 */
export async function startEmulatorLine(
  line: string,
  env: Record<string, string>,
): Promise<EmulatorFromLine> {
  const cli = `"${process.execPath}" packages/kudos-emulator/dist/cjs/cli.js`;
  const child = spawn('sh', ['-c', `${line.replace('npx kudos-emulator', cli)} --port 0 --quiet`], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  endWithTestFile(child, { group: true });
  let ended = false;
  const exited = new Promise((resolve) => child.on('exit', resolve)).then(() => {
    ended = true;
  });
  let text = '';
  const collect = (chunk: Buffer) => {
    text += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const stop = async () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM'); // the shell and the emulator
    } catch {
      // ended already
    }
    await exited;
  };
  for (const end = Date.now() + MACHINE_WAIT_MS; !text.includes('--help for their options'); ) {
    if (ended || Date.now() > end) {
      await stop();
      throw new Error(`the emulator line did not start: ${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const port = Number(/authURL: +http:\/\/127\.0\.0\.1:(\d+)/.exec(text)?.[1]);
  return { authURL: `http://localhost:${port}`, banner: () => text, stop };
}
