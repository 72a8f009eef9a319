import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/testing/index.js';
import { launchChromium } from '../helpers/chromium.js';
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
  let shop = '';
  const order = async () =>
    (await (await fetch(`${shop}/orders`, { method: 'POST' })).json()) as { id: string; widget: string };

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
    kudos = await startKudosEmulator({
      users: [...PAYMENT_USERS, { id: 'mallory-alt', password: 'pw' }],
      paymentDelayMs: 5,
    });
    const port = await freePort();
    child = spawn(process.execPath, [join(OUT, 'webhook.js')], {
      env: {
        ...process.env,
        PORT: String(port),
        KUDOS_WEBHOOK_SECRET: SECRET,
        KUDOS_BASE_URL: kudos.baseURL,
        KUDOS_AUTH_URL: kudos.authURL,
        KUDOS_SHOP_WALLET: kudos.walletOf('bobby'),
        KUDOS_WEBHOOK_DB: join(mkdtempSync(join(tmpdir(), 'readme-webhook-')), 'webhook.db'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    shop = `http://127.0.0.1:${port}`;
    kudos.setWebhook('shop-agent', `${shop}/webhooks/kudos?token=${SECRET}`);
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

  it('credits an order paid to the shop’s wallet, once', async () => {
    const { id, widget } = await order();
    const link = new URL(widget);
    expect(Object.fromEntries(link.searchParams)).toEqual({
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
      state: id,
    });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', state: id });
    await kudos.idle();
    await expect.poll(() => output).toContain(`order paid: ${tx.txHash} 2000000000 nanokudos`);
    expect(kudos.deliveries.at(-1)?.responseStatus).toBe(200);
    expect(output.split(`order paid: ${tx.txHash}`).length - 1).toBe(1);
  });

  it('does not credit an edited widget link that pays someone else through the shop’s agent', async () => {
    const { id } = await order();
    const tx = kudos.pay({ from: 'alice', to: 'mallory-alt', amount: '1000', via: 'shop-agent', state: id });
    await kudos.idle();
    await expect.poll(() => output).toContain(`not credited: ${tx.txHash} success received=0`);
    expect(output).not.toContain(`order paid: ${tx.txHash}`);
  });

  it('the return page reconciles a lost notification for its own open order, once', async () => {
    kudos.setWebhook('shop-agent', undefined); // the notification is lost
    try {
      const { id } = await order();
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', state: id });
      const other = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent' });
      await kudos.idle();
      const unknown = await fetch(`${shop}/paid?state=made-up&tx_hash=${tx.txHash}`);
      expect(unknown.status).toBe(404);
      const back = await fetch(`${shop}/paid?state=${id}&tx_hash=${tx.txHash}`);
      expect(await back.text()).toBe('paid, thank you');
      const replay = await fetch(`${shop}/paid?state=${id}&tx_hash=${other.txHash}`);
      expect(replay.status).toBe(404);
      expect(output).not.toContain(other.txHash);
    } finally {
      kudos.setWebhook('shop-agent', `${shop}/webhooks/kudos?token=${SECRET}`);
    }
  });
  it("the popup page of docs/payments.md: the widget's message reaches it, and the server credits the order (Chromium, a real popup)", async () => {
    const readme = readFileSync('docs/payments.md', 'utf8');
    const block = /```html\n(<!-- Your order page[\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(block).toContain('TX_SUBMITTED');
    const { id, widget } = await order();
    const link = new URL(widget);
    link.searchParams.set('redirect_uri', `${shop}/paid`); // only its origin: where the message goes
    const html = block
      .replace("'KUDOS_ORIGIN'", JSON.stringify(new URL(kudos.authURL).origin))
      .replace('WIDGET_LINK&amp;', `${link.toString().replaceAll('&', '&amp;')}&amp;`);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      await page.goto(`${kudos.authURL}/in/login`);
      await page.fill('input[name=username]', 'alice');
      await page.fill('input[name=password]', 'wonderland');
      await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
      // The order page, served on the shop's origin; its fetch('/paid?...') reaches the snippet's server.
      await page.route(`${shop}/order`, (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: `<!doctype html><title>order</title>${html}`,
        }),
      );
      await page.goto(`${shop}/order`);
      const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#tip')]);
      await popup.waitForLoadState();
      const closed = popup.waitForEvent('close');
      await popup.getByRole('button', { name: 'Confirm' }).click();
      await closed;
      await expect.poll(() => page.textContent('#tip-result')).toBe('paid, thank you');
      expect(output).toContain(`order paid:`);
      expect(id).toBe(link.searchParams.get('state'));
    } finally {
      await browser.close();
    }
  });
});
