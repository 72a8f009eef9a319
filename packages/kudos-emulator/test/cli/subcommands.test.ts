import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endWithTestFile } from '../../../../test/helpers/children.js';
import { authURLOf, CLI, runCli, type StartedEmulator, startCli } from '../../../../test/helpers/cli.js';
import { CookieClient } from '../../../../test/helpers/cookie-client.js';
import { startWebhookSink, type WebhookSink } from '../../../../test/helpers/webhook-sink.js';

// Every subcommand runs the real bin in a child process against a running emulator (also the bin).
describe('kudos-emulator subcommands against a running emulator', () => {
  let emulator: StartedEmulator;
  let sink: WebhookSink;
  let url: string;
  const cli = (...args: string[]) => runCli([...args, '--url', url]);

  beforeAll(async () => {
    sink = await startWebhookSink();
    const config = join(mkdtempSync(join(tmpdir(), 'kudos-cli-')), 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        users: [
          { id: 'alice', password: 'wonderland' },
          { id: 'bobby', password: 'builder' },
          { id: 'shop-agent', password: 'agent-pass' },
        ],
        agents: [{ id: 'shop-agent', webhookURL: sink.url }],
        paymentDelayMs: 5,
      }),
    );
    emulator = startCli(['--port', '0', '--quiet', '--config', config]);
    url = authURLOf(await emulator.output);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
  afterAll(async () => {
    emulator.child.kill('SIGTERM');
    await emulator.exit;
    await sink.close();
  });

  it('trigger payment: pays as the widget would and prints the hash and status; the agent gets the notification', async () => {
    const { stdout, code } = await cli(
      'trigger',
      'payment',
      '--to',
      'bobby',
      '--amount',
      '2',
      '--via',
      'shop-agent',
    );
    expect(code).toBe(0);
    const [hash, status] = stdout.trim().split(/\s+/);
    expect(hash).toMatch(/^[0-9A-F]{64}$/);
    expect(status).toBe('success');
    const lookup = await fetch(`${url}/api/cosmos/lcd/cosmos/tx/v1beta1/txs/${hash}`);
    expect(lookup.status).toBe(200);
    await expect
      .poll(() => sink.received.some((h) => (h.body as { tx: { txHash: string } }).tx.txHash === hash))
      .toBe(true);
  });

  it('trigger payment --json: the transaction as JSON, with --from, --fee, --status and --remarks', async () => {
    const { stdout, code } = await cli(
      'trigger',
      'payment',
      '--to',
      'bobby',
      '--amount',
      '1.5',
      '--from',
      'alice',
      '--via',
      'shop-agent',
      '--fee',
      '1',
      '--status',
      'fail',
      '--remarks',
      'from the shell',
      '--state',
      'order-9',
      '--json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      status: 'fail',
      from: 'alice',
      to: ['bobby'],
      amounts: ['1.5'],
      via: 'shop-agent',
      fee: '1',
      remarks: 'from the shell',
    });
  });

  it('trigger payment refuses bad input with the message naming the field, exit 1', async () => {
    const unknown = await cli('trigger', 'payment', '--to', 'nobody', '--amount', '1');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No user "nobody" (in "to" or "via").');
    const status = await cli('trigger', 'payment', '--to', 'bobby', '--amount', '1', '--status', 'lost');
    expect(status.stderr).toContain('--status must be success, fail or timeout');
    const missing = await cli('trigger', 'payment', '--amount', '1');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--to is required');
  });

  it('deliveries: every delivery, with time, agent, URL without its secret, hash, status, answer and attempt', async () => {
    const { stdout, code } = await cli('deliveries', '--json');
    expect(code).toBe(0);
    const list = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(list.length).toBeGreaterThan(0);
    expect(list[0]).toMatchObject({
      id: expect.any(Number),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      agent: 'shop-agent',
      url: expect.stringContaining('token=REDACTED'),
      txHash: expect.stringMatching(/^[0-9A-F]{64}$/),
      status: expect.any(String),
      answer: 200,
      attempt: 1,
    });
    expect(stdout).not.toContain('agent-secret');
    const human = await cli('deliveries');
    const [header, first] = human.stdout.split('\n');
    expect(header).toBe('ID\tTIME\tAGENT\tURL\tTX HASH\tSTATUS\tANSWER\tATTEMPT');
    expect(first?.split('\t')).toEqual([
      expect.stringMatching(/^\d+$/), // the delivery ID that resend takes
      expect.any(String),
      'shop-agent',
      expect.not.stringContaining('agent-secret'),
      expect.stringMatching(/^[0-9A-F]{64}$/),
      'success',
      '200',
      '1',
    ]);
  });

  it('agents add and agents set-webhook: add an agent, point its webhook elsewhere, remove it', async () => {
    const added = await cli(
      'agents',
      'add',
      'new-agent',
      '--webhook',
      `${sink.url}?token=agent-secret-0123456789`,
      '--redirect',
      'https://shop.example/done',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('agent new-agent: webhook');
    expect(added.stdout).not.toContain('agent-secret-0123456789');
    const state = await (await fetch(`${url}/_emulator/state`)).json();
    expect(state.agents.find((a: { id: string }) => a.id === 'new-agent')).toMatchObject({
      paymentRedirectURIs: ['https://shop.example/done'],
    });
    const moved = await cli('agents', 'set-webhook', 'new-agent', 'http://127.0.0.1:9/elsewhere');
    expect(moved.stdout).toBe(
      'agent new-agent: webhook http://127.0.0.1:9/elsewhere, redirects https://shop.example/done\n',
    );
    const removed = JSON.parse((await cli('agents', 'set-webhook', 'new-agent', 'none', '--json')).stdout);
    expect(removed).toEqual({
      id: 'new-agent',
      webhookURL: null,
      paymentRedirectURIs: ['https://shop.example/done'],
    });
    const bad = await cli('agents', 'set-webhook', 'new-agent', 'not a url');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('kudos-emulator: URL must be an absolute http(s) URL'); // in the CLI's words
    expect((await cli('agents', 'set-webhook', 'new-agent')).code).toBe(2);
  });

  it("listen --forward-to: the agent's notifications go to URL and are printed, until Ctrl-C restores its webhook", async () => {
    const local = await startWebhookSink();
    const child = spawn(
      process.execPath,
      [CLI, 'listen', '--forward-to', local.url, '--agent', 'shop-agent', '--print-body', '--url', url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    endWithTestFile(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 2400 && !what(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(what(), out).toBe(true);
    };
    try {
      await until(() => out.includes('Forwarding the notifications of agent shop-agent'));
      const before = sink.received.length;
      const hash = (
        await cli('trigger', 'payment', '--to', 'bobby', '--amount', '1', '--via', 'shop-agent')
      ).stdout
        .trim()
        .split(/\s+/)[0] as string;
      await until(() => out.includes(`${hash}  success  -> 200`));
      await until(() => out.includes('"txHash":')); // --print-body: the body follows its line
      expect(local.received.map((h) => (h.body as { tx: { txHash: string } }).tx.txHash)).toContain(hash);
      expect(sink.received.length).toBe(before); // not to the agent's own webhook meanwhile
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain(
        "Stopped forwarding: agent shop-agent's notifications go to its own webhook again.",
      );
      const after = (
        await cli('trigger', 'payment', '--to', 'bobby', '--amount', '1', '--via', 'shop-agent')
      ).stdout
        .trim()
        .split(/\s+/)[0] as string;
      await until(() =>
        sink.received.some((h) => (h.body as { tx: { txHash: string } }).tx.txHash === after),
      );
    } finally {
      child.kill('SIGKILL');
      await local.close();
    }
  });

  it('reads the emulator address from KUDOS_EMULATOR_URL when --url is not given', async () => {
    const res = await runCli(['deliveries', '--json'], { ...process.env, KUDOS_EMULATOR_URL: url });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).length).toBeGreaterThan(0);
    const nowhere = await runCli(['deliveries'], {
      ...process.env,
      KUDOS_EMULATOR_URL: 'http://127.0.0.1:9',
    });
    expect(nowhere.stderr).toContain('no emulator answers at http://127.0.0.1:9');
  });

  it('resend DELIVERY_ID: sends that notification again, as a redelivery (next attempt)', async () => {
    const list = JSON.parse((await cli('deliveries', '--json')).stdout) as Array<{
      id: number;
      txHash: string;
    }>;
    const first = list[0] as { id: number; txHash: string };
    const before = sink.received.length;
    const { stdout, code } = await cli('resend', String(first.id));
    expect(code).toBe(0);
    expect(stdout).toContain(`resent delivery ${first.id}`);
    await expect.poll(() => sink.received.length, { timeout: 10_000 }).toBe(before + 1);
    const after = JSON.parse((await cli('deliveries', '--json')).stdout) as Array<{
      txHash: string;
      attempt: number;
    }>;
    expect(after.filter((d) => d.txHash === first.txHash).map((d) => d.attempt)).toContain(2);
    const missing = await cli('resend', '99999');
    expect([missing.code, missing.stderr.includes('no delivery 99999')]).toEqual([1, true]);
    expect((await cli('resend', 'abc')).code).toBe(2);
  });

  it('clock advance DURATION: moves the clock (90s, 61m, 1h), and refuses what is not a duration', async () => {
    const before = (await (await fetch(`${url}/_emulator/state`)).json()) as { clockOffsetMs: number };
    const { stdout, code } = await cli('clock', 'advance', '61m');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^emulator time is now \d{4}-/);
    const after = (await (await fetch(`${url}/_emulator/state`)).json()) as { clockOffsetMs: number };
    expect(after.clockOffsetMs - before.clockOffsetMs).toBe(61 * 60_000);
    expect((await cli('clock', 'advance', '90s')).code).toBe(0);
    const bad = await cli('clock', 'advance', 'soon');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('DURATION');
  });

  it('users add ID:PASSWORD [--display-name]: the user can sign in; a bad ID is refused naming the rule', async () => {
    const { stdout, code } = await cli('users', 'add', 'carol-new:carol-pass', '--display-name', 'Carol');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^added user carol-new \(wallet cosmos1/);
    const login = await new CookieClient().postForm(`${url}/in/login`, {
      username: 'carol-new',
      password: 'carol-pass',
      next: '/in/account',
    });
    expect(login.status).toBe(302);
    const bad = await cli('users', 'add', 'ab:pw');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('5 to 20 characters');
    expect((await cli('users', 'add', 'nocolon')).code).toBe(2);
  });

  it('clients add ID:SECRET:REDIRECT_URI: the client can exchange codes', async () => {
    const { code, stdout } = await cli('clients', 'add', 'cli-app:cli-secret:http://127.0.0.1:5000/cb');
    expect(code).toBe(0);
    expect(stdout).toBe('added client cli-app\n');
    const res = await fetch(`${url}/api/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: 'cli-app',
        client_secret: 'cli-secret',
        grant_type: 'authorization_code',
        code: 'x',
      }),
    });
    expect(await res.text()).toBe('INVALID_GRANT'); // known client, unknown code
    for (const uri of ['not a url', 'javascript:alert(1)']) {
      expect((await cli('clients', 'add', `cli-app:secret:${uri}`)).stderr).toContain(
        'REDIRECT_URI must be an absolute http(s) URL',
      );
    }
    // An existing client is not replaced silently: refused, unless --update.
    const again = await cli('clients', 'add', 'cli-app:other-secret:http://127.0.0.1:5000/cb');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('client "cli-app" exists');
    expect(again.stderr).toContain('--update');
    const exchange = (secret: string) =>
      fetch(`${url}/api/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: 'cli-app',
          client_secret: secret,
          grant_type: 'authorization_code',
          code: 'x',
        }),
      }).then((r) => r.text());
    expect(await exchange('cli-secret')).toBe('INVALID_GRANT'); // the first secret still works
    const updated = await cli('clients', 'add', 'cli-app:other-secret:http://127.0.0.1:5000/cb', '--update');
    expect(updated.stdout).toBe('updated client cli-app\n');
    expect(await exchange('cli-secret')).toBe('INVALID_CLIENT_CRED');
    expect(await exchange('other-secret')).toBe('INVALID_GRANT');
  });

  it('says clearly when no emulator answers at --url', async () => {
    const res = await runCli(['deliveries', '--url', 'http://127.0.0.1:9']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('no emulator answers at http://127.0.0.1:9');
  });
});

describe('kudos-emulator --admin-token', () => {
  it('makes the admin API and the subcommands need the token', async () => {
    const emulator = startCli(['--port', '0', '--quiet', '--admin-token', 'admin-token-0123456789']);
    try {
      const url = authURLOf(await emulator.output);
      const refused = await fetch(`${url}/_emulator/deliveries`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'admin_token_required' });
      const without = await runCli(['deliveries', '--url', url]);
      expect([without.code, without.stderr.includes('needs its token')]).toEqual([1, true]);
      const withToken = await runCli([
        'deliveries',
        '--url',
        url,
        '--admin-token',
        'admin-token-0123456789',
        '--json',
      ]);
      expect([withToken.code, withToken.stdout.trim()]).toEqual([0, '[]']);
    } finally {
      emulator.child.kill('SIGTERM');
      await emulator.exit;
    }
  });
});
