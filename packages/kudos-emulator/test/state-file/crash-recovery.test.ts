import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authURLOf, type StartedEmulator, startCli } from '../../../../test/helpers/cli.js';
import { MACHINE_WAIT_MS } from '../../../../test/helpers/machine-wait.js';
import { startWebhookSink, type WebhookSink } from '../../../../test/helpers/webhook-sink.js';

// The emulator killed (SIGKILL: no chance to save) while a payment is pending, or while a
// notification waits for a retry, resumes after a restart on the same --state file: the real bin.

const poll = async (until: () => boolean, what: string, ms = MACHINE_WAIT_MS) => {
  const end = Date.now() + ms;
  while (!until()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

// Each case restarts the emulator's process and waits on its sender: sized for a busy machine.
describe('kudos-emulator --state survives a crash: pending payments and retries resume', {
  timeout: 3 * MACHINE_WAIT_MS,
}, () => {
  let sink: WebhookSink;
  let running: StartedEmulator | undefined;
  afterEach(async () => {
    running?.child.kill('SIGKILL');
    await running?.exit;
    running = undefined;
    await sink?.close();
  });

  async function start(dir: string, config: object): Promise<string> {
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify(config));
    running = startCli([
      '--port',
      '0',
      '--quiet',
      '--state',
      join(dir, 'state.json'),
      '--config',
      configFile,
    ]);
    const url = authURLOf(await running.output);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    return url;
  }

  async function kill(): Promise<void> {
    running?.child.kill('SIGKILL');
    await running?.exit;
    running = undefined;
  }

  async function pay(url: string): Promise<string> {
    const res = await fetch(`${url}/_emulator/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { txHash: string }).txHash;
  }

  const users = [
    { id: 'alice', password: 'wonderland' },
    { id: 'bobby', password: 'builder' },
  ];

  it('a payment pending at the kill settles and is notified after the restart', async () => {
    sink = await startWebhookSink();
    const dir = mkdtempSync(join(tmpdir(), 'kudos-crash-'));
    const config = { users, agents: [{ id: 'shop-agent', webhookURL: sink.url }], paymentDelayMs: 4000 };
    const url = await start(dir, config);
    const paidAt = Date.now();
    void pay(url).catch(() => undefined); // the admin API answers once the payment settled: never, here
    // The state file's history: one JSON line per transaction version, in state.json.log.
    const saved = () => {
      if (!existsSync(join(dir, 'state.json.log'))) return undefined;
      const lines = readFileSync(join(dir, 'state.json.log'), 'utf8').split('\n').filter(Boolean);
      const txs = lines
        .map((l) => JSON.parse(l) as { t?: { txHash: string; status: string } })
        .flatMap((e) => e.t ?? []);
      return txs.find((t) => t.status === 'pending')?.txHash;
    };
    await poll(() => saved() !== undefined, 'the save of the pending payment');
    const hash = saved() as string;
    await kill(); // before the payment settled: nothing was sent
    expect(Date.now() - paidAt).toBeLessThan(4000);
    expect(sink.received).toHaveLength(0);
    await start(dir, config);
    await poll(() => sink.received.length > 0, 'the notification after the restart');
    expect(sink.received.map((h) => (h.body as { tx: { txHash: string; status: string } }).tx)).toEqual([
      expect.objectContaining({ txHash: hash, status: 'success' }),
    ]);
  });

  it('a notification waiting for a retry at the kill is retried after the restart', async () => {
    sink = await startWebhookSink([500]); // the first attempt fails
    const dir = mkdtempSync(join(tmpdir(), 'kudos-crash-'));
    const config = {
      users,
      agents: [{ id: 'shop-agent', webhookURL: sink.url }],
      paymentDelayMs: 5,
      webhook: { attempts: 5, retryDelayMs: 2000 },
    };
    const url = await start(dir, config);
    const hash = await pay(url);
    await poll(() => sink.received.length === 1, 'the first attempt');
    // The first attempt's outcome saved (its delivery in the log), not only the notification queued.
    const log = join(dir, 'state.json.log');
    await poll(
      () => existsSync(log) && readFileSync(log, 'utf8').includes('"d":'),
      'the save of the first attempt',
    );
    await kill(); // during the 2 s before the retry
    await start(dir, config);
    await poll(() => sink.received.length === 2, 'the retry after the restart');
    const [first, second] = sink.received.map((h) => (h.body as { tx: { txHash: string } }).tx.txHash);
    expect([first, second]).toEqual([hash, hash]);
    const deliveries = (await (
      await fetch(`${authURLOf(await (running as StartedEmulator).output)}/_emulator/deliveries`)
    ).json()) as Array<{
      attempt: number;
      answer: number;
    }>;
    expect(deliveries.map((d) => [d.attempt, d.answer])).toEqual([
      [1, 500],
      [2, 200],
    ]);
  });
});
