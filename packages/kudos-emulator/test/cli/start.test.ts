import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startCli as run } from '../../../../test/helpers/cli.js';

describe('kudos-emulator command', () => {
  const children: ChildProcess[] = [];
  beforeAll(() => {
    expect(existsSync(CLI), 'run npm run build first').toBe(true);
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGTERM');
  });

  it('starts with the demo client and users, prints its URLs and credentials, and serves them', async () => {
    const started = run(['--port', '0', '--quiet']);
    children.push(started.child);
    const text = await started.output;
    const authURL = /authURL:\s+(\S+)/.exec(text)?.[1] ?? '';
    expect(authURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(text).toContain(`baseURL:   ${authURL}/api`);
    expect(text).toContain('kudos-demo-client / kudos-demo-secret');
    expect(text).toContain('alice / wonderland');
    // The environment the README's snippets read, as lines to paste into a shell.
    for (const line of [
      `export KUDOS_AUTH_URL=${authURL}`,
      `export KUDOS_BASE_URL=${authURL}/api`,
      `export KUDOS_CHAIN_URL=${authURL}/chain`,
      'export KUDOS_CLIENT_ID=kudos-demo-client',
      'export KUDOS_CLIENT_SECRET=kudos-demo-secret',
    ]) {
      expect(text).toContain(line);
    }
    const home = await fetch(authURL);
    expect(home.status).toBe(200);
    started.child.kill('SIGTERM');
    expect(await started.exit).toBe(0);
  });

  it('takes clients, users and agents from flags', async () => {
    const started = run([
      '--port=0',
      '--client',
      'shop:shh:http://127.0.0.1/cb',
      '--user',
      'zoe-z:zoe-password',
      '--agent',
      'zoe=http://127.0.0.1:9/hook',
      '--code-param',
      'auth_code',
    ]);
    children.push(started.child);
    const text = await started.output;
    expect(text).toContain('clients:   shop / shh');
    expect(text).toContain('users:     zoe-z / zoe-password');
  });

  it('takes a JSON config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-cli-'));
    const file = join(dir, 'kudos.json');
    writeFileSync(file, JSON.stringify({ users: [{ id: 'yan-user', password: 'yan-password' }] }));
    const started = run(['--port', '0', '--config', file]);
    children.push(started.child);
    expect(await started.output).toContain('users:     yan-user / yan-password');
  });

  it.each([
    [['--bogus'], "unknown option '--bogus'"],
    [['--port', 'x'], '--port must be 0 to 65535'],
    [['--user', 'nocolon'], '--user must look like A:B'],
    [['--config', '/nonexistent.json'], 'cannot read config file /nonexistent.json'],
    [['--port', '0', '--code-param', 'token'], '"codeParam" must be one of'],
  ])('refuses %j with a message and no stack trace', async (args, message) => {
    const started = run(args);
    const text = await started.output;
    expect(await started.exit).not.toBe(0);
    expect(text).toContain(message);
    expect(text).not.toMatch(/\n\s+at /);
  });

  it('prints its usage with --help', async () => {
    const started = run(['--help']);
    expect(await started.output).toContain('Usage: kudos-emulator [options]');
    expect(await started.exit).toBe(0);
  });

  it('lists the URLs to configure, agents with wallets and webhooks (no secret), and the subcommands', async () => {
    const started = run([
      '--port',
      '0',
      '--quiet',
      '--user',
      'alice-a:pw-a',
      '--user',
      'shop-agent:pw-s',
      '--agent',
      'shop-agent=http://agent:hook-password@127.0.0.1:9/hook?token=hook-secret',
    ]);
    children.push(started.child);
    const text = await started.output;
    const authURL = /authURL:\s+(\S+)/.exec(text)?.[1] ?? '';
    expect(text).toContain(`token:     ${authURL}/api/oauth/access_token`);
    expect(text).toContain(`LCD:       ${authURL}/api/cosmos/lcd`);
    expect(text).toContain(`chain:     ${authURL}/chain`);
    expect(text).toContain('generation: 2025');
    expect(text).toMatch(
      /shop-agent: wallet cosmos1\w{38}, webhook http:\/\/127\.0\.0\.1:9\/hook\?token=REDACTED/,
    );
    expect(text).toMatch(/alice-a: cosmos1\w{38}/);
    expect(text).not.toContain('hook-secret');
    expect(text).not.toContain('hook-password');
    expect(text).toContain('trigger payment, deliveries, resend, clock advance, users add, clients add');
    expect(text).not.toContain('AUTO-LOGIN');
  });

  it('says loudly when --auto-login is on', async () => {
    const started = run(['--port', '0', '--quiet', '--auto-login', 'alice']);
    children.push(started.child);
    const text = await started.output;
    expect(text).toContain('!!! AUTO-LOGIN IS ON !!!');
    expect(text).toContain('signs in "alice" and accepts at once');
  });

  it('stops with a message naming a corrupt --state file, exit 1', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kudos-cli-state-')), 'state.json');
    writeFileSync(file, 'not json');
    const started = run(['--port', '0', '--state', file]);
    expect(await started.exit).toBe(1);
    expect(await started.output).toContain(`kudos-emulator: state file ${file} is not valid JSON`);
  });
});
