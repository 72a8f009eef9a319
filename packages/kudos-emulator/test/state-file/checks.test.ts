import { existsSync, lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';

// Numbers from a request or a file are range-checked, and a state file of the wrong shape is refused
// naming the file and the field: the emulator never ends up answering 500 forever.
describe('the emulator refuses numbers out of range and state files of the wrong shape', () => {
  let kudos: KudosEmulator | undefined;
  afterEach(async () => {
    await kudos?.close();
    kudos = undefined;
  });

  it('answers 400 to a clock advance of 9007199254740991 ms and keeps working, also after a restart', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kudos-range-')), 'state.json');
    kudos = await startKudosEmulator({ state: file });
    const res = await fetch(`${kudos.authURL}/_emulator/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance: '9007199254740991' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_field', field: 'advance' });
    expect((await fetch(`${kudos.authURL}/_emulator/state`)).status).toBe(200);
    expect((await fetch(`${kudos.authURL}/`)).status).toBe(200);
    expect(() => kudos?.advanceClock(Number.MAX_SAFE_INTEGER)).toThrow(RangeError);
    await kudos.close();
    kudos = await startKudosEmulator({ state: file });
    expect((await fetch(`${kudos.authURL}/`)).status).toBe(200);
  });

  async function savedState(): Promise<{ file: string; state: Record<string, unknown> }> {
    const file = join(mkdtempSync(join(tmpdir(), 'kudos-shape-')), 'state.json');
    const first = await startKudosEmulator({ state: file, paymentDelayMs: 1 });
    first.pay({ from: 'alice', to: 'bobby', amount: '1' });
    await first.idle();
    await first.close();
    return { file, state: JSON.parse(readFileSync(file, 'utf8')) };
  }

  it.each([
    ['clockOffsetMs', (s: Record<string, unknown>) => (s.clockOffsetMs = 9e15)],
    [
      'users[0].id',
      (s: Record<string, unknown>) => ((s.users as Array<Record<string, unknown>>)[0] = { id: 5 }),
    ],
    ['jwtSecret', (s: Record<string, unknown>) => (s.jwtSecret = 42)],
    ['grants', (s: Record<string, unknown>) => (s.grants = {})],
    ['clients', (s: Record<string, unknown>) => delete s.clients],
  ])('refuses a state file whose "%s" is wrong, naming the file and the field', async (field, spoil) => {
    const { file, state } = await savedState();
    spoil(state);
    writeFileSync(file, JSON.stringify(state));
    await expect(startKudosEmulator({ state: file })).rejects.toThrow(
      `state file ${file} has an invalid "${field}"`,
    );
    const cli = await runCli(['--port', '0', '--quiet', '--state', file]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain(`state file ${file} has an invalid "${field}"`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(state); // left as it is
  });

  it('lets one emulator at a time use a state file: a second is refused naming the file and the process', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kudos-lock-')), 'state.json');
    kudos = await startKudosEmulator({ state: file });
    await expect(startKudosEmulator({ state: file })).rejects.toThrow(
      `state file ${file} is in use by another kudos-emulator (process ${process.pid}`,
    );
    const second = await runCli(['--port', '0', '--quiet', '--state', file]);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(
      `state file ${file} is in use by another kudos-emulator (process ${process.pid}`,
    );
    await kudos.close();
    kudos = await startKudosEmulator({ state: file }); // released at close
  });

  it('writes through a symbolic link (the link stays) and removes the temporary files a kill left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-link-'));
    const real = join(dir, 'real-state.json');
    const link = join(dir, 'state.json');
    symlinkSync(real, link);
    writeFileSync(`${real}.424242.tmp`, 'secrets of a killed emulator');
    kudos = await startKudosEmulator({ state: link });
    expect(existsSync(`${real}.424242.tmp`)).toBe(false);
    kudos.addUser({ id: 'carol-link', password: 'pw' });
    await kudos.close();
    kudos = undefined;
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('carol-link');
  });

  it('refuses a history line of the wrong shape naming the field, and skips only a last line a kill cut off', async () => {
    const { file } = await savedState();
    const log = `${file}.log`;
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const spoiled = lines.map((line) => {
      const entry = JSON.parse(line) as { t?: Record<string, unknown> };
      if (entry.t) entry.t.ts = 'x';
      return JSON.stringify(entry);
    });
    writeFileSync(log, `${spoiled.join('\n')}\n`);
    await expect(startKudosEmulator({ state: file })).rejects.toThrow(
      `state file ${file} has an invalid "transactions[0].ts"`,
    );
    writeFileSync(log, `${lines.join('\n')}\n{"t":{"txHash":"cut o`); // a kill in the middle of an append
    kudos = await startKudosEmulator({ state: file });
    expect((await (await fetch(`${kudos.authURL}/_emulator/state`)).json()).transactions).toHaveLength(1);
  });
});
