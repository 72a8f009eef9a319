import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endWithTestFile } from '../../../../test/helpers/children.js';
import { authURLOf, CLI, runCli, type StartedEmulator, startCli } from '../../../../test/helpers/cli.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';
import { type KudosWebhookHandler, kudosWebhook } from '../../../kudos-payments/src/index.js';
import { SUBCOMMAND_HELP } from '../../src/cli/help.js';
import { USAGE } from '../../src/cli/start.js';

// The CLI as a newcomer meets it: every example of every --help, run as written against a real
// receiver that checks its secret, delivers with 200; the words of a group print their subcommands;
// a 401 is explained; a URL without a scheme is http://; listen never guesses the agent.

const SECRET = 'first-hour-webhook-secret';
/** The words that start subcommands of two words (`agents`, `trigger`...). */
const GROUPS = [
  ...new Set(
    Object.keys(SUBCOMMAND_HELP).flatMap((n) => (n.includes(' ') ? [n.slice(0, n.indexOf(' '))] : [])),
  ),
];

/** Runs a shell line as a user would type it, with the receiver's secret in the environment. */
function shell(line: string): ChildProcess {
  const child = spawn('sh', ['-c', line], {
    env: { ...process.env, KUDOS_WEBHOOK_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: stopped with everything it started
  });
  return endWithTestFile(child, { group: true });
}

/** Ctrl-C to a shell line and what it started; resolves when it ended. */
async function interrupt(child: ChildProcess, exit: Promise<number | null>): Promise<void> {
  if (child.exitCode === null && child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGINT');
    } catch {
      // ended already
    }
  }
  await exit;
}

/** Waits until `check` holds (at most 5 s). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** The output of a child so far, and its end. */
function collect(child: ChildProcess): { text: () => string; exit: Promise<number | null> } {
  let text = '';
  child.stdout?.on('data', (c: Buffer) => {
    text += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    text += c.toString();
  });
  return { text: () => text, exit: new Promise((resolve) => child.on('exit', resolve)) };
}

describe('kudos-emulator as a newcomer meets it', () => {
  let receiver: Listening;
  let hook: KudosWebhookHandler;
  const handled: string[] = [];
  let emulator: StartedEmulator | undefined;
  let url: string;

  beforeAll(async () => {
    hook = kudosWebhook({ secret: SECRET, onNotification: (n) => void handled.push(n.key) });
    receiver = await listenLocal(http.createServer((req, res) => hook(req, res)));
  });
  afterAll(() => receiver.close());
  afterEach(async () => {
    emulator?.child.kill('SIGTERM');
    await emulator?.exit;
    emulator = undefined;
  });

  /** An emulator of the bin with the demo users and `args`; its URL. */
  async function start(args: string[] = []): Promise<void> {
    emulator = startCli(['--port', '0', '--quiet', ...args]);
    url = authURLOf(await emulator.output);
    expect(url).not.toBe('');
  }
  /** An example as printed, pointed at this test's receiver and emulator. */
  const asHere = (example: string) =>
    example
      .replaceAll('http://localhost:3001', receiver.url)
      .replace(/^kudos-emulator /, `"${process.execPath}" "${CLI}" `);
  const cli = (...args: string[]) => runCli([...args, '--url', url]);
  /** A payment through `agent`, and the status of its last delivery once sent. */
  async function paidThrough(agent: string): Promise<number | undefined> {
    const paid = await cli('trigger', 'payment', '--to', 'bobby', '--amount', '1', '--via', agent);
    expect(paid.code, paid.stderr).toBe(0);
    const [hash, status] = paid.stdout.trim().split(/\s+/);
    expect(hash).toMatch(/^[0-9A-F]{64}$/);
    expect(status).toBe('success'); // trigger payment prints how it ended
    let answer: number | undefined;
    for (let i = 0; i < 2400 && answer === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const list = JSON.parse((await cli('deliveries', '--json')).stdout) as Array<{
        txHash: string;
        answer: unknown;
      }>;
      const last = list.filter((d) => d.txHash === hash).at(-1);
      if (typeof last?.answer === 'number') answer = last.answer;
    }
    return answer;
  }

  it.each([
    ['agents add', 'reader-agent'],
    ['agents set-webhook', 'shop-agent'],
  ])('the example of %s --help, run as written, delivers with 200', async (name, agent) => {
    const example = SUBCOMMAND_HELP[name]?.example ?? '';
    expect(example).toContain('?token=$KUDOS_WEBHOOK_SECRET'); // the secret the receiver needs
    await start(name === 'agents set-webhook' ? ['--agent', `${agent}=http://127.0.0.1:9/elsewhere`] : []);
    const run = collect(shell(`${asHere(example).replace('shop-agent', agent)} --url ${url}`));
    expect(await run.exit, run.text()).toBe(0);
    expect(await paidThrough(agent)).toBe(200);
  });

  it('the example of listen --help, run as written, delivers with 200 (and creates the agent it names)', async () => {
    const example = SUBCOMMAND_HELP.listen?.example ?? '';
    expect(example).toContain('--agent shop-agent');
    await start(); // no agent at all: listen --agent creates it
    const child = shell(`${asHere(example)} --url ${url}`);
    const listen = collect(child);
    try {
      await until(() => listen.text().includes('Forwarding'));
      expect(listen.text()).toContain('Created agent shop-agent');
      expect(await paidThrough('shop-agent')).toBe(200);
    } finally {
      await interrupt(child, listen.exit);
    }
  });

  it("the start command's example, run as written (on a free port), delivers with 200 and whitelists the return page", async () => {
    const example = USAGE.slice(USAGE.indexOf('  kudos-emulator --agent'))
      .replace(/\\\n\s*/g, '')
      .trim();
    expect(example).toContain('?token=$KUDOS_WEBHOOK_SECRET');
    const child = shell(`${asHere(example)} --port 0 --quiet`);
    const run = collect(child);
    try {
      await until(() => run.text().includes('kudos-emulator --help for their options'));
      url = authURLOf(run.text());
      expect(await paidThrough('shop-agent')).toBe(200);
      const state = (await (await fetch(`${url}/_emulator/state`)).json()) as {
        agents: Array<{ id: string; paymentRedirectURIs: string[] }>;
      };
      expect(state.agents.find((a) => a.id === 'shop-agent')?.paymentRedirectURIs).toEqual([
        `${receiver.url}/paid`,
      ]);
    } finally {
      await interrupt(child, run.exit);
    }
  });

  it('a forward target that answers 401 is explained on the spot; a URL without a scheme is http://', async () => {
    await start(['--agent', 'shop-agent=http://127.0.0.1:9/elsewhere']);
    const bare = receiver.url.replace('http://', ''); // 127.0.0.1:PORT, as the Stripe CLI takes it
    const child = spawn(process.execPath, [
      CLI,
      'listen',
      '--agent',
      'shop-agent',
      '--forward-to',
      `${bare}/webhooks/kudos`,
      '--url',
      url,
    ]);
    endWithTestFile(child);
    const listen = collect(child);
    try {
      await until(() => listen.text().includes('Forwarding'));
      expect(listen.text()).toContain(`to ${receiver.url}/webhooks/kudos`);
      expect(await paidThrough('shop-agent')).toBe(401); // no secret in the URL
      await expect
        .poll(() => listen.text(), { timeout: 5000 })
        .toContain("401: your receiver refused the notification's credentials");
      expect(listen.text()).toContain('?token=SECRET');
    } finally {
      child.kill('SIGINT');
      await listen.exit;
    }
  });

  it('listen with several agents and no --agent asks for one, naming them; nothing is forwarded', async () => {
    await start(['--agent', 'shop-agent=http://127.0.0.1:9/a', '--agent', 'tip-agent=http://127.0.0.1:9/b']);
    const run = await runCli(['listen', '--forward-to', `${receiver.url}/webhooks/kudos`, '--url', url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'kudos-emulator: the emulator has 2 agents (shop-agent, tip-agent): give --agent ID',
    );
  });

  it.each(GROUPS)(
    '%s --help (and -h, help %s) lists its subcommands, exit 0; alone, the same on stderr, exit 2',
    async (group) => {
      const names = Object.keys(SUBCOMMAND_HELP).filter((n) => n.startsWith(`${group} `));
      for (const args of [
        [group, '--help'],
        [group, '-h'],
        ['help', group],
      ]) {
        const { stdout, stderr, code } = await runCli(args);
        expect(code, args.join(' ')).toBe(0);
        expect(stderr).toBe('');
        for (const name of names) expect(stdout).toContain(`  ${name}: `);
      }
      const alone = await runCli([group]);
      expect(alone.code).toBe(2);
      for (const name of names) expect(alone.stderr).toContain(`  ${name}: `);
    },
  );

  it('refusals name the flags the user typed, not the admin API fields', async () => {
    await start(['--agent', 'shop-agent=http://127.0.0.1:9/a']);
    const webhook = await cli('agents', 'add', 'new-agent', '--webhook', 'ftp://127.0.0.1/hook');
    expect(webhook.stderr).toContain('kudos-emulator: --webhook must be an absolute http(s) URL');
    const setWebhook = await cli('agents', 'set-webhook', 'shop-agent', 'ftp://127.0.0.1/hook');
    expect(setWebhook.stderr).toContain('kudos-emulator: URL must be an absolute http(s) URL');
    const exists = await cli('agents', 'add', 'shop-agent');
    expect(exists.stderr).toContain('pass --update to change it');
    expect(exists.stderr).not.toContain('"update"');
    const status = await cli('trigger', 'payment', '--to', 'bobby', '--amount', '1', '--status', 'lost');
    expect(status.stderr).toContain('kudos-emulator: --status must be success, fail or timeout');
    const forward = await cli('listen', '--agent', 'shop-agent', '--forward-to', 'ftp://127.0.0.1/hook');
    expect(forward.stderr).toContain('--forward-to must be an absolute http(s) URL');
  });
});
