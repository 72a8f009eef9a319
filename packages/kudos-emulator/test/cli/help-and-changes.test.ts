import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endWithTestFile } from '../../../../test/helpers/children.js';
import { authURLOf, CLI, runCli, type StartedEmulator, startCli } from '../../../../test/helpers/cli.js';
import { CookieClient } from '../../../../test/helpers/cookie-client.js';
import { startWebhookSink, type WebhookSink } from '../../../../test/helpers/webhook-sink.js';
import { SUBCOMMAND_HELP } from '../../src/cli/help.js';

// The real `kudos-emulator` bin: help per subcommand, the version, short usage errors, no silent
// overwrite, a forward URL shown without its secret, and forwarding as a lease.
const SUBCOMMANDS = Object.keys(SUBCOMMAND_HELP);

describe('kudos-emulator help, version and usage errors', () => {
  it.each(SUBCOMMANDS)(
    '%s --help (and -h, and help %s) prints its usage and an example, exit 0',
    async (name) => {
      for (const args of [
        [...name.split(' '), '--help'],
        [...name.split(' '), '-h'],
        ['help', ...name.split(' ')],
      ]) {
        const { stdout, stderr, code } = await runCli(args);
        expect(code, args.join(' ')).toBe(0);
        expect(stderr).toBe('');
        expect(stdout).toContain(`Usage: kudos-emulator ${name}`);
        expect(stdout).toContain('Example:\n  kudos-emulator ');
        expect(stdout.split('\n').length).toBeLessThan(20); // its own, not the whole usage
      }
    },
  );

  it('--version, -v and version print the version of the emulator package; help alone and -h print the usage', async () => {
    const { version } = JSON.parse(readFileSync('packages/kudos-emulator/package.json', 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v', 'version']) {
      const { stdout, code } = await runCli([flag]);
      expect([code, stdout.trim()]).toEqual([0, version]);
    }
    for (const args of [['help'], ['-h'], ['--help']]) {
      const { stdout, code } = await runCli(args);
      expect(code).toBe(0);
      expect(stdout).toContain('Usage: kudos-emulator [options]');
    }
  });

  it("runs from a clone as `npx kudos-emulator`, the workspace's command, offline", async () => {
    const { version } = JSON.parse(readFileSync('packages/kudos-emulator/package.json', 'utf8')) as {
      version: string;
    };
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        'npx',
        ['--offline', 'kudos-emulator', '--version'],
        { timeout: 60_000, env: { ...process.env, npm_config_offline: 'true' } },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    expect(out.trim()).toBe(version);
  });

  it.each([
    [['users', 'add', 'x:y', '--bogus'], "unknown option '--bogus'", 'kudos-emulator users add --help'],
    [['resend'], 'resend needs a DELIVERY_ID', 'kudos-emulator resend --help'],
    [['agents', 'frobnicate'], "unknown subcommand 'agents frobnicate'", 'kudos-emulator --help'],
    [['help', 'nosuch'], "no subcommand 'nosuch'", 'kudos-emulator --help'],
    [['--bogus'], "unknown option '--bogus'", 'kudos-emulator --help'],
  ])('a usage error %j is two lines naming it and the help to read, exit 2', async (args, message, help) => {
    const { stdout, stderr, code } = await runCli(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(`kudos-emulator: ${message}`);
    expect(lines[1]).toBe(`Run '${help}' for the usage.`);
  });
});

describe('kudos-emulator changes nothing by surprise', () => {
  let emulator: StartedEmulator;
  let sink: WebhookSink;
  let url: string;
  const cli = (...args: string[]) => runCli([...args, '--url', url]);
  const state = async () =>
    (await (await fetch(`${url}/_emulator/state`)).json()) as {
      users: Array<{ id: string }>;
      agents: Array<{
        id: string;
        paymentRedirectURIs: string[];
        forwarding: { url: string; until: string } | null;
      }>;
    };

  beforeAll(async () => {
    sink = await startWebhookSink();
    emulator = startCli(['--port', '0', '--quiet', '--agent', `shop-agent=${sink.url}`]);
    url = authURLOf(await emulator.output);
  });
  afterAll(async () => {
    emulator.child.kill('SIGTERM');
    await emulator.exit;
    await sink.close();
  });

  /** Whether the emulator's sign-in form accepts `username` with `password`. */
  async function signsIn(username: string, password: string): Promise<boolean> {
    const browser = new CookieClient();
    await browser.postForm(`${url}/in/login`, { username, password, next: '/in/account' });
    return (await browser.get(`${url}/in/account`)).status === 200;
  }

  it('users add of an existing user is refused (exit 1) unless --update, which replaces the password', async () => {
    const refused = await cli('users', 'add', 'bobby:newpw');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('user "bobby" exists');
    expect(refused.stderr).toContain('--update');
    expect(await signsIn('bobby', 'builder')).toBe(true); // unchanged
    const updated = await cli('users', 'add', 'bobby:newpw', '--update');
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain('updated user bobby');
    expect(await signsIn('bobby', 'newpw')).toBe(true);
    expect(await signsIn('bobby', 'builder')).toBe(false);
    const added = await cli('users', 'add', 'carol-new:pw123');
    expect([added.code, added.stdout.startsWith('added user carol-new')]).toEqual([0, true]);
  });

  it('agents add of an existing agent is refused unless --update; add-redirect appends; a typo changes nothing', async () => {
    await cli('agents', 'add-redirect', 'shop-agent', 'https://shop.example/one');
    const refused = await cli('agents', 'add', 'shop-agent', '--redirect', 'https://shop.example/two');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('agent "shop-agent" exists');
    const appended = await cli('agents', 'add-redirect', 'shop-agent', 'https://shop.example/two');
    expect(appended.code).toBe(0);
    const agent = (await state()).agents.find((a) => a.id === 'shop-agent');
    expect(agent?.paymentRedirectURIs).toEqual(['https://shop.example/one', 'https://shop.example/two']);
    const replaced = await cli(
      'agents',
      'add',
      'shop-agent',
      '--update',
      '--redirect',
      'https://shop.example/three',
    );
    expect(replaced.code).toBe(0);
    expect((await state()).agents.find((a) => a.id === 'shop-agent')?.paymentRedirectURIs).toEqual([
      'https://shop.example/three',
    ]);
    for (const args of [
      ['agents', 'set-webhook', 'nosuch-agent', 'none'],
      ['agents', 'add-redirect', 'nosuch-agent', 'https://shop.example/x'],
      ['agents', 'add', 'nosuch-agent', '--update'],
    ]) {
      const typo = await cli(...args);
      expect(typo.code, args.join(' ')).toBe(1);
      expect(typo.stderr).toContain('no agent "nosuch-agent"');
    }
    expect((await state()).agents.map((a) => a.id)).not.toContain('nosuch-agent');
  });

  it('listen shows the forward URL without its secret, and forwarding is a lease shown in the state', async () => {
    const secret = 'my-webhook-secret-0123';
    const child = spawn(
      process.execPath,
      [CLI, 'listen', '--forward-to', `${sink.url}?token=${secret}`, '--agent', 'shop-agent', '--url', url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    endWithTestFile(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    try {
      await expect
        .poll(() => out, { timeout: 10_000 })
        .toContain('Forwarding the notifications of agent shop-agent');
      expect(out).not.toContain(secret);
      expect(out).toContain('token=REDACTED');
      const forwarding = (await state()).agents.find((a) => a.id === 'shop-agent')?.forwarding;
      expect(forwarding?.url).toContain('token=REDACTED');
      const left = Date.parse(forwarding?.until ?? '') - Date.now();
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(15_000); // lapses within 15 s of the last renewal
      const home = await (await fetch(`${url}/`)).text();
      expect(home).toContain('forwarding (listen)');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL'); // no chance to stop forwarding: the lease has to end it
      await exited;
    }
  });

  it('a forward whose lease is not renewed lapses: notifications go to the agent’s own webhook again', async () => {
    const other = await startWebhookSink();
    /** A payment through the agent: its hash. */
    const pay = async () =>
      (await cli('trigger', 'payment', '--to', 'bobby', '--amount', '1', '--via', 'shop-agent')).stdout
        .trim()
        .split(/\s+/)[0] as string;
    try {
      const res = await fetch(`${url}/_emulator/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ id: 'shop-agent', update: true, forwardTo: other.url, forwardForMs: 2000 }),
      });
      expect(res.status).toBe(200);
      const during = await pay();
      await expect.poll(() => other.received.some((h) => JSON.stringify(h.body).includes(during))).toBe(true);
      // Past the lease (polled: a slow machine only waits longer).
      await expect
        .poll(async () => (await state()).agents.find((a) => a.id === 'shop-agent')?.forwarding, {
          timeout: 10_000,
        })
        .toBeNull();
      const after = await pay();
      await expect.poll(() => sink.received.some((h) => JSON.stringify(h.body).includes(after))).toBe(true);
      expect(other.received.some((h) => JSON.stringify(h.body).includes(after))).toBe(false);
    } finally {
      await other.close();
    }
  });
});
