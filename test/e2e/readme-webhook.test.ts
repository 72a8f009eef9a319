import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/testing/index.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { freePort } from '../helpers/free-port.js';

// The README's webhook example (docs/snippets/webhook.ts), compiled and run as is against the
// emulator: a payment through the widget arrives, is confirmed on the chain, and is recorded as paid.
const OUT = 'test-results/snippets';
const SECRET = 'readme-webhook-secret-0123456789';

describe('the README webhook example, run against the emulator', () => {
  let kudos: KudosEmulator;
  let child: ChildProcess;
  let output = '';

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    // Compiled inside the repository, so `passport-kudos` resolves to this package's build.
    writeFileSync(
      join(OUT, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../docs/snippets/tsconfig.json',
        compilerOptions: { noEmit: false, outDir: '.', rootDir: '../../docs/snippets' },
        include: [],
        files: ['../../docs/snippets/webhook.ts'],
      }),
    );
    execFileSync(process.execPath, [
      join('node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(OUT, 'tsconfig.json'),
    ]);
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5 });
    const port = await freePort();
    child = spawn(process.execPath, [join(OUT, 'webhook.js')], {
      env: {
        ...process.env,
        PORT: String(port),
        KUDOS_WEBHOOK_SECRET: SECRET,
        KUDOS_BASE_URL: kudos.baseURL,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    kudos.setWebhook('shop-agent', `http://127.0.0.1:${port}/webhooks/kudos?token=${SECRET}`);
    // Wait until the example listens (it answers a GET with 404 or 405).
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/webhooks/kudos`).catch(() => undefined);
      if (res) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);
  afterAll(async () => {
    child?.kill('SIGTERM');
    await kudos?.close();
  });

  it('records a confirmed payment as paid, once', async () => {
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent' });
    await kudos.idle();
    await expect.poll(() => output).toContain(`${tx.txHash} success 2000000000 nanokudos paid=true`);
    expect(kudos.deliveries.at(-1)?.responseStatus).toBe(200);
    expect(output.split(tx.txHash).length - 1).toBe(1);
  });
});
