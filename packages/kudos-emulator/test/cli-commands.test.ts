import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';
import { startWebhookSink, type WebhookSink } from '../../../test/helpers/webhook-sink.js';
import { CommandError, runSubcommand } from '../src/cli/admin.js';
import {
  packageVersion,
  SUBCOMMAND_HELP,
  shortParseError,
  subcommandHelp,
  subcommandOf,
  usageError,
} from '../src/cli/help.js';
import { runListen } from '../src/cli/listen.js';
import { banner, parseStartOptions } from '../src/cli/start.js';

// The kudos-emulator subcommands' own code, in process, against a running emulator: every example of
// the help table runs as written, and each refusal names what is wrong. (packages/kudos-emulator/test/cli/ runs the
// real command as a process, exit codes and output streams included.)
describe('kudos-emulator subcommands, in process', () => {
  let kudos: KudosEmulator;
  let sink: WebhookSink;
  const run = (line: string, ...extra: string[]) =>
    runSubcommand([...line.replace(/^kudos-emulator /, '').split(' '), '--url', kudos.authURL, ...extra]);
  beforeAll(async () => {
    sink = await startWebhookSink();
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: sink.url }],
      paymentDelayMs: 5,
    });
  });
  afterAll(async () => {
    await kudos.close();
    await sink.close();
  });

  it('runs every example of the help table as written (listen aside: it runs until stopped)', async () => {
    const examples = Object.entries(SUBCOMMAND_HELP).filter(([name]) => name !== 'listen');
    expect(examples.length).toBeGreaterThanOrEqual(9);
    // In the order a developer would: the agent and a payment first, so `resend 1` has a delivery.
    const order = ['agents add', 'trigger payment', 'deliveries', 'resend', 'clock advance'];
    examples.sort(([a], [b]) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
    for (const [name, { example }] of examples) {
      const extra = name === 'agents add' ? ['--update'] : [];
      const result = await run(example, ...extra);
      expect(result.code, `${name}: ${result.out}`).toBe(0);
      if (name === 'trigger payment') await kudos.idle();
    }
    expect(kudos.deliveries.length).toBeGreaterThanOrEqual(2); // the payment's, and its resend
    const listed = await run('deliveries', '--json');
    expect(JSON.parse(listed.out)).toEqual(expect.arrayContaining([expect.objectContaining({ id: 1 })]));
  });

  it.each([
    ['trigger payment --amount 2', '--to is required'],
    ['resend', 'DELIVERY_ID'],
    ['clock advance soon', 'DURATION'],
    ['users add carol', 'ID:PASSWORD'],
    ['clients add my-app', 'ID:SECRET:REDIRECT_URI'],
    ['agents set-webhook', 'ID'],
  ])('refuses "%s" with a usage error naming %s', async (line, named) => {
    const error = await run(line).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as Error).message).toContain(named);
  });

  it('tells a refusal of the emulator (an unknown user) and a missing emulator apart from usage errors', async () => {
    await expect(run('trigger payment --to nobody --amount 2')).rejects.toThrow(
      /nobody|RECEIPIENT_NOT_FOUND|not found/i,
    );
    await expect(runSubcommand(['deliveries', '--url', 'http://127.0.0.1:9'])).rejects.toThrow(
      'no emulator answers at http://127.0.0.1:9',
    );
    await expect(runSubcommand(['deliveries', '--url', 'not a url'])).rejects.toBeInstanceOf(CommandError);
  });

  it('helps: each subcommand by name, usage errors in two lines, parse errors short, the version', () => {
    for (const name of Object.keys(SUBCOMMAND_HELP)) {
      expect(subcommandOf(name.split(' '))).toBe(name);
      expect(subcommandHelp(name)).toContain(SUBCOMMAND_HELP[name]?.example);
    }
    expect(subcommandOf(['users', 'remove'])).toBeUndefined();
    expect(usageError('--to is required', 'trigger payment').split('\n')).toHaveLength(2);
    const parse = Object.assign(new Error("Unknown option '--nope'. To specify a positional argument…"), {
      code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION',
    });
    expect(shortParseError(parse)).toContain('--nope');
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('kudos-emulator start options and banner, in process', () => {
  it('reads every option into the emulator options', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-start-options-'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ agents: [{ id: 'from-config' }] }));
    try {
      const options = parseStartOptions([
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--host-allow',
        'dev.local',
        '--config',
        config,
        '--client',
        'app:secret:http://localhost:3000/cb',
        '--user',
        'carol:pw',
        '--agent',
        'shop=http://localhost:3001/hook',
        '--payment-redirect',
        'shop=http://localhost:3000/done',
        '--payment-redirect',
        'carol=http://localhost:3000/thanks',
        '--code-param',
        'auth_code',
        '--state',
        join(dir, 'state.json'),
        '--auto-login',
        'carol',
        '--admin-token',
        'admin-secret-token',
        '--quiet',
      ]);
      expect(options).toMatchObject({
        port: 0,
        host: '127.0.0.1',
        allowedHosts: ['dev.local'],
        codeParam: 'auth_code',
        clients: [{ clientID: 'app', clientSecret: 'secret', redirectURIs: ['http://localhost:3000/cb'] }],
        users: [{ id: 'carol', password: 'pw', paymentRedirectURIs: ['http://localhost:3000/thanks'] }],
        agents: [
          { id: 'from-config' },
          {
            id: 'shop',
            webhookURL: 'http://localhost:3001/hook',
            paymentRedirectURIs: ['http://localhost:3000/done'],
          },
        ],
        autoLogin: 'carol',
        adminToken: 'admin-secret-token',
      });
      // --quiet: no request log, but warnings and errors still go to stderr.
      const printed = {
        out: vi.spyOn(console, 'log').mockReturnValue(),
        err: vi.spyOn(console, 'error').mockReturnValue(),
      };
      try {
        options?.log?.('a request', 'info');
        options?.log?.('a failed delivery', 'warn');
        options?.log?.('a failed save', 'error');
        expect(printed.out).not.toHaveBeenCalled();
        expect(printed.err.mock.calls).toEqual([['a failed delivery'], ['a failed save']]);
      } finally {
        printed.out.mockRestore();
        printed.err.mockRestore();
      }
      expect(parseStartOptions(['--help'])).toBeUndefined();
      expect(parseStartOptions([])?.port).toBe(4000);
      // The banner of an emulator started with them: the URLs to configure, accounts, wallets, agents.
      const emulator = await startKudosEmulator({ ...options, state: undefined, autoLogin: 'carol' });
      try {
        const state = (await (
          await fetch(`${emulator.authURL}/_emulator/state`, {
            headers: { authorization: 'Bearer admin-secret-token' },
          })
        ).json()) as Record<string, unknown>;
        const text = banner(emulator, { ...options }, state);
        for (const part of [
          `authURL:   ${emulator.authURL}`,
          'export KUDOS_CLIENT_ID=app',
          'carol / pw',
          'shop: wallet',
          'AUTO-LOGIN IS ON',
          'State file:',
        ]) {
          expect(text).toContain(part);
        }
      } finally {
        await emulator.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [['--port', '70000'], '--port must be 0 to 65535'],
    [['--client', 'app'], '--client must look like A:B'],
    [['--user', 'carol'], '--user must look like A:B'],
    [['--agent', 'shop'], '--agent must look like A=B'],
    [['--payment-redirect', 'shop=http://not a url'], 'needs an absolute URL'],
    [['--payment-redirect', 'nobody=http://localhost/x'], 'no agent or user "nobody"'],
    [['--config', '/nonexistent/kudos.json'], 'cannot read config file'],
  ])('refuses %j naming the mistake', (argv, named) => {
    expect(() => parseStartOptions(argv)).toThrow(named);
  });
});

describe('kudos-emulator listen, in process', () => {
  it("forwards the agent's notifications to --forward-to and prints each, then puts its webhook back", async () => {
    const own = await startWebhookSink();
    const forwarded = await startWebhookSink();
    const kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: own.url }],
      paymentDelayMs: 5,
    });
    const lines: string[] = [];
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    try {
      const target = `${forwarded.url}?token=listen-forward-secret-0123`;
      const running = runListen(
        ['--forward-to', target, '--url', kudos.authURL, '--print-body'],
        (l) => lines.push(l),
        stopped,
      );
      await expect.poll(() => lines.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(lines[0]).toContain('Forwarding the notifications of agent shop-agent to');
      expect(lines[0]).not.toContain('listen-forward-secret-0123'); // the forward URL's secret is not printed
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent' });
      await kudos.idle();
      expect(forwarded.received.map((r) => (r.body as { tx: { txHash: string } }).tx.txHash)).toContain(
        tx.txHash,
      );
      expect(own.received).toHaveLength(0);
      await expect.poll(() => lines.some((l) => l.includes(tx.txHash)), { timeout: 10_000 }).toBe(true);
      stop();
      expect(await running).toBe(0);
      expect(lines.at(-1)).toContain(
        "Stopped forwarding: agent shop-agent's notifications go to its own webhook again.",
      );
      kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle();
      expect(own.received).toHaveLength(1);
    } finally {
      await kudos.close();
      await own.close();
      await forwarded.close();
    }
  });

  it('refuses a missing or relative --forward-to, and an emulator with no agent', async () => {
    await expect(runListen(['--forward-to', '/hooks'], () => undefined)).rejects.toThrow(
      'listen needs --forward-to URL',
    );
    const bare = await startKudosEmulator({ agents: [] });
    try {
      await expect(
        runListen(['--forward-to', 'http://127.0.0.1:9/hook', '--url', bare.authURL], () => undefined),
      ).rejects.toThrow('the emulator has no agent: give --agent ID');
    } finally {
      await bare.close();
    }
  });
});
