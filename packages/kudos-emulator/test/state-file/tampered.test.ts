import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authURLOf, runCli, startCli } from '../../../../test/helpers/cli.js';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';
import { MACHINE_WAIT_MS } from '../../../../test/helpers/machine-wait.js';

// A state file changed by hand, one field at a time, started with the real bin: refused at start
// naming the field, never a crash when a timer settles a payment, never a 500 on every lookup.

type Json = Record<string, unknown>;
type Spoil = (file: { state: Json; transaction: Json; delivery: Json }) => void;

describe('the emulator refuses a tampered state file at start, naming the field (the real bin)', () => {
  let dir: string;
  let receiver: Listening;
  /**
   * The saved state, its log's lines, the line of the pending transaction (its last version: the
   * log appends one per change) and its index among the transactions the file holds.
   */
  let saved: { state: Json; lines: Json[]; pending: number; index: number; hash: string };

  beforeAll(async () => {
    receiver = await listenLocal(http.createServer((_, res) => res.end('ok')));
    dir = mkdtempSync(join(tmpdir(), 'kudos-tampered-'));
    const file = join(dir, 'base.json');
    const kudos = await startKudosEmulator({
      state: file,
      users: PAYMENT_USERS,
      agents: [
        { id: 'shop-agent', webhookURL: `${receiver.url}/hook?token=tampered-shop-secret` },
        // Its webhook refuses connections: its notification waits in the outbox for a retry.
        { id: 'bobby', webhookURL: 'http://127.0.0.1:9/hook' },
      ],
      paymentDelayMs: 1,
      webhook: { attempts: 3, retryDelayMs: 600_000 },
    });
    const paid = kudos.pay({ from: 'alice', to: 'bobby', amount: '1.5', via: 'shop-agent' });
    kudos.pay({ from: 'alice', to: 'shop-agent', amount: '2', via: 'bobby' });
    await paid.settled;
    // Both first attempts made (answered, or refused): as long as a busy machine takes.
    for (const end = Date.now() + MACHINE_WAIT_MS; kudos.deliveries.length < 2 && Date.now() < end; )
      await new Promise((resolve) => setTimeout(resolve, 20));
    await kudos.close();
    const lines = readFileSync(`${file}.log`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Json);
    // The paid one, made pending again: a restart settles it (as after a crash before it settled).
    const pending = lines.map((line) => (line.t as Json | undefined)?.txHash).lastIndexOf(paid.txHash);
    const hashes = [...new Set(lines.flatMap((line) => (line.t ? [(line.t as Json).txHash] : [])))];
    const tx = lines[pending]?.t as Json;
    tx.status = 'pending';
    delete tx.height;
    saved = {
      state: JSON.parse(readFileSync(file, 'utf8')) as Json,
      lines,
      pending,
      index: hashes.indexOf(paid.txHash),
      hash: paid.txHash,
    };
    expect(saved.state.outbox).toHaveLength(1);
  });
  afterAll(() => receiver.close());

  /** A copy of the saved files with `spoil` applied, written under `name`. */
  function write(name: string, spoil: Spoil = () => undefined): string {
    const state = structuredClone(saved.state);
    const lines = structuredClone(saved.lines);
    const transaction = lines[saved.pending]?.t as Json;
    const delivery = lines.find((line) => line.d)?.d as Json;
    spoil({ state, transaction, delivery });
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(state));
    writeFileSync(`${file}.log`, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    return file;
  }

  it('the file as saved (with a payment still pending) starts, settles it and answers its lookups', async () => {
    const file = write('untouched');
    const started = startCli(['--port', '0', '--quiet', '--state', file]);
    try {
      const banner = await started.output;
      const url = authURLOf(banner);
      const base = /baseURL:\s+(\S+)/.exec(banner)?.[1];
      expect(url).not.toBe('');
      // It settles after paymentDelayMs (200 ms), or as long as a busy machine takes.
      const status = async () => {
        const tx = await fetch(`${base}/tx/id/${saved.hash}`);
        return tx.status === 200 ? ((await tx.json()) as { status: string }).status : `HTTP ${tx.status}`;
      };
      await expect.poll(status, { timeout: MACHINE_WAIT_MS, interval: 100 }).toBe('success');
      expect((await fetch(`${url}/_emulator/deliveries?body=1`)).status).toBe(200);
      expect(started.child.exitCode).toBeNull(); // still running: nothing crashed
    } finally {
      started.child.kill();
      await started.exit;
    }
  });

  const MUTATIONS: Array<[string, string, Spoil]> = [
    [
      'a pending amount that is no number',
      'T.request.amounts[0]',
      (f) => ((f.transaction.request as Json).amounts = ['abc']),
    ],
    ['no widget parameters', 'T.request.given', (f) => delete (f.transaction.request as Json).given],
    [
      'a widget parameter that is no string',
      'T.request.given.state',
      (f) => (((f.transaction.request as Json).given as Json).state = 5),
    ],
    ['a fee that is no amount', 'T.request.fee', (f) => ((f.transaction.request as Json).fee = '1e3')],
    ['no receivers', 'T.request.to', (f) => ((f.transaction.request as Json).to = [])],
    [
      'more amounts than receivers',
      'T.request.amounts',
      (f) => ((f.transaction.request as Json).amounts = ['1', '2']),
    ],
    ['a payer that is no user ID', 'T.request.from', (f) => ((f.transaction.request as Json).from = 42)],
    [
      'blocking that is no boolean',
      'T.request.blocking',
      (f) => ((f.transaction.request as Json).blocking = 'yes'),
    ],
    ['no request at all', 'T.request', (f) => delete f.transaction.request],
    ['an unknown status', 'T.status', (f) => (f.transaction.status = 'done')],
    ['an outcome that is not final', 'T.outcome', (f) => (f.transaction.outcome = 'pending')],
    ['a negative block height', 'T.height', (f) => (f.transaction.height = -1)],
    ['a completion time that is no time', 'T.completeTs', (f) => (f.transaction.completeTs = 'now')],
    ['a delivery body that is not JSON', 'deliveries[0].body', (f) => (f.delivery.body = 'not json')],
    ['a delivery of an unknown status', 'deliveries[0].txStatus', (f) => (f.delivery.txStatus = 'maybe')],
    ['a delivery without a time', 'deliveries[0].at', (f) => (f.delivery.at = null)],
    ['a negative delivery ID', 'deliveries[0].id', (f) => (f.delivery.id = -1)],
    [
      'an outbox entry bound for ftp:',
      'outbox[0].url',
      (f) => (((f.state.outbox as Json[])[0] as Json).url = 'ftp://127.0.0.1/hook'),
    ],
    [
      'an outbox body that is not JSON',
      'outbox[0].body',
      (f) => (((f.state.outbox as Json[])[0] as Json).body = '{'),
    ],
    [
      'a civic status that is neither',
      'users[0].civicLiker',
      (f) => (((f.state.users as Json[])[0] as Json).civicLiker = 'yes'),
    ],
    [
      'a webhook URL that is no URL',
      'agents[0].webhookURL',
      (f) => (((f.state.agents as Json[])[0] as Json).webhookURL = 'not a url'),
    ],
    [
      'a javascript: redirect URI',
      'clients[0].redirectURIs[0]',
      (f) => (((f.state.clients as Json[])[0] as Json).redirectURIs = ['javascript:alert(1)']),
    ],
    ['a negative notification counter', 'nextNotificationId', (f) => (f.state.nextNotificationId = -1)],
  ];

  it.each(MUTATIONS)(
    '%s: refused at start naming "%s", exit code 1, no stack trace',
    async (name, field, spoil) => {
      const file = write(name.replace(/\W+/g, '-'), spoil);
      const expected = field.replace(/^T\./, `transactions[${saved.index}].`);
      const run = await runCli(['--port', '0', '--quiet', '--state', file]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`state file ${file} has an invalid "${expected}"`);
      expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(run.stdout).not.toContain('listening');
    },
  );
});
