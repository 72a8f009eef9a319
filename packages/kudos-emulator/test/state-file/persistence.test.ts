import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { startWebhookSink, type WebhookSink } from '../../../../test/helpers/webhook-sink.js';
import { takeLock } from '../../src/store/state-lock.js';

// The stored-data paths of the emulator's --state file, in process: the format-1 file of earlier
// versions read and rewritten, the history log compacted at the start, and a dead holder's lock.
describe("the emulator's state file", () => {
  let dir: string;
  let kudos: KudosEmulator | undefined;
  let sink: WebhookSink | undefined;
  afterEach(async () => {
    await kudos?.close();
    kudos = undefined;
    await sink?.close();
    sink = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts an emulator on `file` with a shop agent whose notifications reach the sink. */
  async function start(file: string): Promise<KudosEmulator> {
    sink ??= await startWebhookSink();
    kudos = await startKudosEmulator({
      state: file,
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: sink.url }],
      paymentDelayMs: 5,
    });
    return kudos;
  }

  const logLines = (file: string) => readFileSync(`${file}.log`, 'utf8').split('\n').filter(Boolean);

  it('reads a format-1 file (everything in one file) and rewrites it as format 2 with its log', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-format1-'));
    const file = join(dir, 'state.json');
    let emulator = await start(file);
    const tx = emulator.pay({ from: 'alice', to: 'bobby', amount: '7', via: 'shop-agent' });
    await emulator.idle();
    await emulator.close();
    kudos = undefined;
    // The same state as an earlier version wrote it: one file, the history inside, no log.
    const small = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const history = logLines(file).map((l) => JSON.parse(l) as { t?: unknown; d?: unknown });
    const formatOne = {
      ...small,
      format: 1,
      transactions: history.flatMap((e) => (e.t ? [e.t] : [])),
      deliveries: history.flatMap((e) => (e.d ? [e.d] : [])),
    };
    writeFileSync(file, JSON.stringify(formatOne));
    rmSync(`${file}.log`);
    emulator = await start(file);
    expect(emulator.deliveries.map((d) => d.txHash)).toContain(tx.txHash);
    const rewritten = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(rewritten.format).toBe(2);
    expect(rewritten.transactions).toBeUndefined();
    expect(logLines(file).some((l) => l.includes(tx.txHash))).toBe(true);
    // Still the same emulator: the payment is there for the chain and the history.
    const record = await fetch(`${emulator.baseURL}/tx/id/${tx.txHash}`);
    expect(record.status).toBe(200);
  });

  it('compacts the history log at the start: one line per transaction and delivery', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-compact-'));
    const file = join(dir, 'state.json');
    let emulator = await start(file);
    for (let i = 0; i < 3; i++) emulator.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await emulator.idle();
    await emulator.close();
    kudos = undefined;
    const before = logLines(file);
    const key = (line: string) => {
      const entry = JSON.parse(line) as { t?: { txHash: string }; d?: { id: number } };
      return entry.t ? `t:${entry.t.txHash}` : `d:${entry.d?.id}`;
    };
    const distinct = new Set(before.map(key));
    // A payment is appended once per version (pending, then success), its delivery once.
    expect(before.length).toBeGreaterThan(distinct.size);
    emulator = await start(file);
    const after = logLines(file);
    expect(after.map(key).sort()).toEqual([...distinct].sort()); // one line each, none lost
    expect(after.filter((l) => l.includes('"status":"success"'))).toHaveLength(3);
    expect(emulator.deliveries).toHaveLength(3);
  });

  it('takes over the lock of a holder that died, and refuses one whose holder lives', () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-lock-'));
    const lock = join(dir, 'state.json.lock');
    // A process that ran and exited: its PID names no live process now.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(lock, dead.stdout);
    const release = takeLock(lock);
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
    expect(existsSync(`${lock}.takeover`)).toBe(false);
    expect(() => takeLock(lock)).toThrow(`in use (process ${process.pid})`);
    release();
    expect(existsSync(lock)).toBe(false);
    // A live holder (the test runner's parent) keeps it.
    writeFileSync(lock, String(process.ppid));
    expect(() => takeLock(lock)).toThrow(`in use (process ${process.ppid})`);
  });
});
