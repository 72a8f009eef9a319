import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { authURLOf, startCli } from '../../../../test/helpers/cli.js';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';

// The state file's history on a real full disk: a 64 kB tmpfs (mounted for the test; CI runs as root).
describe('the state file when the disk fills up', () => {
  let kudos: KudosEmulator | undefined;
  let mounted: string | undefined;
  afterEach(async () => {
    await kudos?.close();
    kudos = undefined;
    if (mounted) execFileSync('umount', [mounted]);
    mounted = undefined;
  });

  it('a failed append keeps its transactions for the next save and leaves no half line; the next start reads everything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-full-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
    mounted = dir;
    const file = join(dir, 'state.json');
    const logs: string[] = [];
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      state: file,
      paymentDelayMs: 1,
      log: (l) => logs.push(l),
    });
    // Fill the disk to a few hundred bytes of room.
    let filler = 0;
    for (const size of [32768, 16384, 8192, 4096, 2048, 1024, 512, 256]) {
      try {
        writeFileSync(join(dir, `filler-${filler++}`), Buffer.alloc(size));
      } catch {
        // that much did not fit: try less
      }
    }
    const hashes: string[] = [];
    for (let i = 0; i < 12; i++) {
      hashes.push(
        kudos.pay({ from: 'alice', to: 'bobby', amount: String(i + 1), remarks: 'x'.repeat(200) }).txHash,
      );
      await kudos.idle();
      await new Promise((resolve) => setImmediate(resolve)); // the save of this turn
    }
    expect(logs.some((l) => l.includes('could not save the state file'))).toBe(true); // the disk was full
    for (let i = 0; i < filler; i++) rmSync(join(dir, `filler-${i}`), { force: true });
    kudos.addUser({ id: 'after-space', password: 'pw' }); // a change: the next save
    await new Promise((resolve) => setImmediate(resolve));
    await kudos.close();
    kudos = undefined;
    const lines = readFileSync(`${file}.log`, 'utf8').split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line), line.slice(0, 60)).not.toThrow(); // no half line
    kudos = await startKudosEmulator({ state: file });
    for (const hash of hashes) expect((await fetch(`${kudos.baseURL}/tx/id/${hash}`)).status, hash).toBe(200);
  });

  it('skips a line that is not JSON, with a warning, and still refuses a whole JSON line of the wrong shape', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-cut-line-'));
    const file = join(dir, 'state.json');
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, state: file, paymentDelayMs: 1 });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
    await kudos.idle();
    await kudos.close();
    kudos = undefined;
    const log = `${file}.log`;
    const good = readFileSync(log, 'utf8');
    writeFileSync(log, `{"t":{"txHash":"cut o\n${good}`); // a cut write, then good lines after it
    const warnings: Error[] = [];
    const listener = (w: Error) => warnings.push(w);
    process.on('warning', listener);
    try {
      kudos = await startKudosEmulator({ state: file });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.message)).toEqual([
        `skipped line 1 of ${log}: a cut-off write (not JSON)`,
      ]);
      expect((await fetch(`${kudos.baseURL}/tx/id/${tx.txHash}`)).status).toBe(200);
    } finally {
      process.off('warning', listener);
    }
    await kudos.close();
    kudos = undefined;
    writeFileSync(log, `{"x":1}\n${good}`);
    await expect(startKudosEmulator({ state: file })).rejects.toThrow(`has an invalid "line 1"`);
  });

  it('--quiet on a full disk: the bin still prints every failed save and failed delivery on stderr, and no request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-quiet-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
    mounted = dir;
    const started = startCli([
      '--port',
      '0',
      '--quiet',
      '--state',
      join(dir, 'state.json'),
      '--agent',
      'shop-agent=http://127.0.0.1:9/webhooks/kudos', // nobody listens: every delivery fails
    ]);
    let stderr = '';
    started.child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    let stdout = '';
    started.child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    try {
      const url = authURLOf(await started.output);
      const bannerEnd = stdout.length;
      for (let filler = 0, size = 32768; size >= 256; size /= 2) {
        try {
          writeFileSync(join(dir, `filler-${filler++}`), Buffer.alloc(size));
        } catch {
          // that much did not fit: try less
        }
      }
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${url}/_emulator/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            to: 'bobby',
            amount: String(i + 1),
            via: 'shop-agent',
            remarks: 'x'.repeat(200),
          }),
        });
        expect(res.status).toBe(201);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stderr).toMatch(/\[kudos-emulator\] could not save the state file .*state\.json: ENOSPC/);
      expect(stderr).toMatch(
        /\[kudos-emulator\] webhook to shop-agent \(success\) attempt 1: ECONNREFUSED; retry in \d+ ms/,
      );
      expect(stdout.slice(bannerEnd)).toBe(''); // --quiet: no request log
    } finally {
      started.child.kill();
      await started.exit;
    }
  });
});
