import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type ChildApp, startChildApp } from '../../../../test/helpers/child-app.js';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { describeSqlite } from '../../../../test/helpers/sqlite.js';
import { type KudosKeptNotification, kudosWebhook } from '../../src/index.js';
import { SqliteDedupeStore } from '../../src/sqlite/index.js';

// The shop's receiver in its own process, killed with SIGKILL and started again on the same store,
// with the emulator's real sender: what the default memory store loses, SqliteDedupeStore keeps.

const APP = join(import.meta.dirname, '../../../../test/fixtures/apps/durable-shop.mjs');
const SECRET = 'durable-shop-secret-0123456789';

type ShopProcess = ChildApp;

describeSqlite('SqliteDedupeStore survives a SIGKILL of the app (real process, emulator sender)', () => {
  let dir: string;
  let kudos: KudosEmulator;
  let shop: ShopProcess | undefined;

  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      paymentDelayMs: 5,
      // The sender gives up after two attempts: only the receiver's own store can recover the payment.
      webhook: { attempts: 2, retryDelayMs: 20, timeoutMs: 2000 },
    });
  });
  afterAll(() => kudos.close());
  afterEach(async () => {
    await kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string>): Promise<ShopProcess> {
    shop = await startChildApp(APP, {
      WEBHOOK_SECRET: SECRET,
      STORE_PATH: join(dir, 'webhook.db'),
      HANDLED_LOG: join(dir, 'handled.log'),
      ...env,
    });
    kudos.setWebhook('shop-agent', `${shop.url}/webhooks/kudos?token=${SECRET}`);
    return shop;
  }

  async function kill(): Promise<void> {
    if (!shop) return;
    const exited = new Promise((resolve) => shop?.child.once('exit', resolve));
    shop.child.kill('SIGKILL');
    await exited;
    shop = undefined;
  }

  const unprocessed = async (s: ShopProcess) =>
    (await (await fetch(`${s.url}/unprocessed`)).json()) as KudosKeptNotification[];
  const redrive = async (s: ShopProcess) =>
    (await (await fetch(`${s.url}/redrive`, { method: 'POST' })).json()) as Record<string, number>;
  const handled = () => {
    const log = join(dir, 'handled.log');
    return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  };

  it('a handler that failed after the sender gave up: kept across a SIGKILL, then redriven once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-durable-'));
    let s = await start({ MODE: 'fail' });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const sent = kudos.deliveries.filter((d) => d.txHash === tx.txHash && d.txStatus === 'success');
    expect(sent.map((d) => d.responseStatus)).toEqual([500, 500]);
    expect((await unprocessed(s)).map((k) => k.key)).toContain(`${tx.txHash}:success`);
    await kill();
    s = await start({ MODE: 'work' });
    const kept = (await unprocessed(s)).find((k) => k.key === `${tx.txHash}:success`);
    expect(kept).toMatchObject({
      attempts: 2,
      lastError: expect.stringContaining('the shop database is down'),
    });
    const result = await redrive(s);
    expect(result).toMatchObject({ failed: 0, remaining: 0 });
    expect(result.processed).toBeGreaterThanOrEqual(1);
    expect(handled().filter((k) => k === `${tx.txHash}:success`)).toHaveLength(1);
    // Delivered again later: a duplicate, not a second credit.
    kudos.resend(sent[0]?.id ?? -1);
    await kudos.idle();
    expect(kudos.deliveries.at(-1)?.responseStatus).toBe(200);
    expect(handled().filter((k) => k === `${tx.txHash}:success`)).toHaveLength(1);
  });

  it('an app killed in the middle of its handler: the claim expires, the notification is redriven once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-durable-'));
    let s = await start({ MODE: 'hang', LEASE_MS: '400', HANDLER_TIMEOUT_MS: '60000' });
    kudos.webhookMode.pendingFirst = false;
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent' });
    const key = `${tx.txHash}:success`;
    const end = Date.now() + 15_000;
    while (!s.output().includes(`handling ${key}`)) {
      if (Date.now() > end) throw new Error(`the handler never started: ${s.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await kill(); // mid-handler: no chance to release, keep an error or answer
    await kudos.idle();
    s = await start({ MODE: 'work', LEASE_MS: '400' });
    expect((await unprocessed(s)).map((k) => k.key)).toContain(key);
    await new Promise((resolve) => setTimeout(resolve, 1200)); // the dead process's lease (400 ms) ends
    await redrive(s);
    expect(handled().filter((k) => k === key)).toHaveLength(1);
    expect((await unprocessed(s)).map((k) => k.key)).not.toContain(key);
  });

  it('checkpoints as it goes: 60 payments, a SIGKILL, the -wal and -shm files deleted, and none runs again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-durable-'));
    const s = await start({ MODE: 'work' });
    kudos.webhookMode.pendingFirst = false;
    const hashes = Array.from(
      { length: 60 },
      () => kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' }).txHash,
    );
    await kudos.idle();
    expect(new Set(handled()).size).toBe(60);
    // The store checkpoints at most CHECKPOINT_AFTER_MS (1 s) after a change: wait for it, then the
    // worst an operator can do to the files (a kill, then the log files deleted as "temporary").
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await kill();
    const path = join(dir, 'webhook.db');
    expect(existsSync(`${path}-wal`)).toBe(true);
    rmSync(`${path}-wal`);
    rmSync(`${path}-shm`, { force: true });
    await start({ MODE: 'work' });
    const last = new Map(
      kudos.deliveries
        .filter((d) => hashes.includes(d.txHash) && d.txStatus === 'success')
        .map((d) => [d.txHash, d.id]),
    );
    for (const id of last.values()) kudos.resend(id);
    await kudos.idle();
    expect(handled()).toHaveLength(60); // each once: the redeliveries were duplicates
    expect(s.child.exitCode).not.toBe(0); // (the first process was the one killed)
  });

  it('for contrast, the default memory store: the same kill loses what it kept (the README says so)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-durable-'));
    let s = await start({ MODE: 'fail', STORE: 'memory' });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    expect((await unprocessed(s)).map((k) => k.key)).toContain(`${tx.txHash}:success`);
    await kill();
    s = await start({ MODE: 'work', STORE: 'memory' });
    expect(await unprocessed(s)).toEqual([]);
  });
});

describeSqlite('SqliteDedupeStore', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kudos-sqlite-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('checks its options, naming the one that is wrong', () => {
    expect(() => new SqliteDedupeStore(undefined as never)).toThrow('"path"');
    expect(() => new SqliteDedupeStore({ path: '' })).toThrow('"path"');
    expect(() => new SqliteDedupeStore({ path: join(dir, 'a.db'), synchronous: 'off' as never })).toThrow(
      '"synchronous"',
    );
    expect(() => new SqliteDedupeStore({ path: join(dir, 'a.db'), busyTimeoutMs: -1 })).toThrow(
      '"busyTimeoutMs"',
    );
    expect(() => new SqliteDedupeStore({ path: join(dir, 'no-such-folder', 'a.db') })).toThrow();
  });

  it('keeps the file in WAL mode, and shares claims between two connections (two processes on one file)', async () => {
    const path = join(dir, 'shared.db');
    const a = new SqliteDedupeStore({ path });
    const b = new SqliteDedupeStore({ path });
    const key = `${'C'.repeat(64)}:success`;
    const answers = await Promise.all([
      a.claim(key, 60_000, { token: 'a', trusted: true }),
      b.claim(key, 60_000, { token: 'b', trusted: true }),
    ]);
    expect(answers.sort()).toEqual(['claimed', 'processing']);
    const winner = answers[0] === 'claimed' ? a : b;
    await winner.complete(key, 60_000, { token: answers[0] === 'claimed' ? 'a' : 'b', trusted: true });
    expect(await b.claim(key, 60_000, { token: 'c', trusted: true })).toBe('done');
    expect(existsSync(`${path}-wal`)).toBe(true);
    a.close();
    b.close();
    a.close(); // twice is fine
  });

  it('skips a kept row it cannot read instead of failing every other one', async () => {
    const path = join(dir, 'corrupt.db');
    const store = new SqliteDedupeStore({ path });
    const good = `${'D'.repeat(64)}:success`;
    const body = { tx: { txHash: 'D'.repeat(64) } };
    await store.keep(
      {
        key: good,
        txHash: 'D'.repeat(64),
        status: 'success',
        attempts: 1,
        lastError: null,
        receivedAt: 2,
        body,
        source: 'webhook',
        trusted: true,
      },
      60_000,
    );
    const sqlite = process.getBuiltinModule('node:sqlite');
    const raw = new sqlite.DatabaseSync(path);
    raw
      .prepare(
        'INSERT INTO kudos_kept (key, received_at, until, trusted, attempts, last_error, record) VALUES (?, 1, ?, 1, 1, NULL, ?)',
      )
      .run('broken', Date.now() + 60_000, '{not json');
    raw.close();
    expect((await store.kept(10)).map((k) => k.key)).toEqual([good]);
    // Through the receiver: listed and redriven without it, and told to onError (kept_unreadable).
    const told: Array<{ code: string; message: string }> = [];
    const handled: string[] = [];
    const hook = kudosWebhook({
      secret: 'corrupt-row-shop-secret',
      store,
      onNotification: (n) => {
        handled.push(n.key);
      },
      onError: (error) => told.push({ code: error.code, message: error.message }),
    });
    expect((await hook.unprocessed()).map((k) => k.key)).toEqual([good]);
    expect(told).toEqual([
      { code: 'kept_unreadable', message: 'kept record broken could not be read (not JSON); it is skipped' },
    ]);
    expect((await hook.redrive()).failed).toBe(1); // the good one's body is no notification
    expect(told.map((t) => t.code)).toContain('kept_unreadable');
    expect(handled).toEqual([]);
    store.close();
  });
});
