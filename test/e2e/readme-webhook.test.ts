import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BROWSER_WAIT_MS, launchChromium } from '../helpers/chromium.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { handPort } from '../helpers/handed-port.js';
import { SNIPPET_HOOK_MS } from '../helpers/machine-wait.js';
import { payLink } from '../helpers/pay-link.js';
import { shellRecipe, startEmulatorLine } from '../helpers/readme-commands.js';
import { compile, runSnippet, SNIPPET_SECRET } from '../helpers/snippets.js';
import { describeSqlite } from '../helpers/sqlite.js';

// The README's payment snippet (docs/snippets/payments.ts) and the low-level one of docs/payments.md
// (docs/snippets/webhook.ts), compiled and run as they are against the emulator, with its real
// sender, a real browser, and the attacks of a payer or a passer-by.
/** The secret the snippets' receivers are started with. */
const SECRET = SNIPPET_SECRET;
/** The return page's words for a paid order: decided, and (once onPaid ran) fulfilled. */
const PAID = /^paid, thank you: (we are preparing your order|it is on its way)$/;
const USERS = [
  ...PAYMENT_USERS,
  { id: 'mallory', password: 'evil-pass' },
  { id: 'mallory-alt', password: 'pw' },
];

/**
 * Signs `user` in at the emulator in a new browser context (the widget shares its cookies); answers
 * the context and its page, once the login's navigation is over (closing a page mid-navigation can
 * hang Chromium).
 */
async function signedIn(
  browser: Browser,
  kudos: KudosEmulator,
  user = 'alice',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  const page = await context.newPage();
  await page.goto(`${kudos.authURL}/in/login`);
  await page.fill('input[name=username]', user);
  await page.fill('input[name=password]', USERS.find((u) => u.id === user)?.password ?? '');
  await Promise.all([
    page.waitForURL((url) => url.pathname !== '/in/login'),
    page.click('button[type=submit]'),
  ]);
  return { context, page };
}

describeSqlite("the README's payment snippet (kudosPayments), run against the emulator", () => {
  let kudos: KudosEmulator;
  let shop: Awaited<ReturnType<typeof runSnippet>>;
  let dir: string;
  let browser: Browser;
  const order = async () =>
    (await (await fetch(`${shop.url}/orders`, { method: 'POST' })).json()) as {
      reference: string;
      widget: string;
    };
  const paidPage = async (state: string, txHash: string) => {
    const res = await fetch(`${shop.url}/paid?state=${state}&tx_hash=${txHash}`);
    return `${res.status} ${await res.text()}`;
  };

  beforeAll(async () => {
    const file = compile('payments');
    kudos = await startKudosEmulator({
      users: USERS,
      paymentDelayMs: 5,
      webhook: { attempts: 2, retryDelayMs: 20 },
    });
    dir = mkdtempSync(join(tmpdir(), 'readme-payments-'));
    shop = await runSnippet(file, {
      KUDOS_BASE_URL: kudos.baseURL,
      KUDOS_AUTH_URL: kudos.authURL,
      KUDOS_CHAIN_URL: kudos.chainURL,
      KUDOS_SHOP_WALLET: kudos.walletOf('bobby'),
      KUDOS_PAYMENTS_DB: join(dir, 'payments.db'),
    });
    kudos.setWebhook('shop-agent', `${shop.url}/webhooks/kudos?token=${SECRET}`);
    kudos.setPaymentRedirectURIs('shop-agent', [`${shop.url}/paid`]);
    browser = await launchChromium();
  }, SNIPPET_HOOK_MS);
  afterAll(async () => {
    await browser?.close();
    shop?.child.kill('SIGTERM');
    await kudos?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a payer follows the link in a browser, pays, and comes back to a page that says paid; credited once', async () => {
    const { reference, widget } = await order();
    const link = new URL(widget);
    expect(link.searchParams.get('state')).toBe(reference);
    expect(link.searchParams.get('remarks')).toBe(`order ${reference}`);
    const { context, page } = await signedIn(browser, kudos);
    try {
      await page.goto(widget);
      await Promise.all([
        page.waitForURL(`${shop.url}/paid?**`),
        page.getByRole('button', { name: 'Confirm' }).click(),
      ]);
      expect(await page.textContent('body')).toMatch(PAID);
      const txHash = new URL(page.url()).searchParams.get('tx_hash') ?? '';
      await kudos.idle();
      await expect.poll(() => shop.output).toContain(`order paid: mug ${reference} ${txHash} 2000000000`);
      expect(shop.output.split(`order paid: mug ${reference}`)).toHaveLength(2);
      expect(kudos.deliveries.filter((d) => d.txHash === txHash).map((d) => d.responseStatus)).toContain(200);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('an edited link that pays the payer’s own account through the shop’s agent credits nothing', async () => {
    const { reference, widget } = await order();
    const tx = payLink(kudos, widget, 'alice', (p) => p.set('to', 'mallory-alt'));
    await kudos.idle();
    expect(await paidPage(reference, tx.txHash)).toBe('200 not confirmed yet');
    expect(shop.output).not.toContain(tx.txHash);
  });

  it('a late notification: Mallory’s return page with Alice’s hash credits Alice’s order, never Mallory’s', async () => {
    kudos.setWebhook('shop-agent', undefined); // the notification is lost
    try {
      const alice = await order();
      const mallory = await order();
      const tx = payLink(kudos, alice.widget, 'alice');
      await kudos.idle();
      expect(await paidPage(mallory.reference, tx.txHash)).toBe('200 this payment is not for this order');
      expect(shop.output).toContain(`order paid: mug ${alice.reference} ${tx.txHash}`);
      expect(shop.output).not.toContain(`order paid: mug ${mallory.reference}`);
      expect(await paidPage(alice.reference, tx.txHash)).toMatch(new RegExp(`^200 ${PAID.source.slice(1)}`));
      expect(await paidPage('made-up', tx.txHash)).toBe('404 no such order');
    } finally {
      kudos.setWebhook('shop-agent', `${shop.url}/webhooks/kudos?token=${SECRET}`);
    }
  });

  it('an underpayment through an edited amount is not credited and is surfaced', async () => {
    const { reference, widget } = await order();
    const tx = payLink(kudos, widget, 'alice', (p) => p.set('amount', '1'));
    await kudos.idle();
    await expect.poll(() => shop.output).toContain(`payment to look at: underpaid ${tx.txHash} 1000000000`);
    expect(await paidPage(reference, tx.txHash)).toBe('200 this payment is not for this order');
    expect(shop.output).not.toContain(`order paid: mug ${reference}`);
  });

  it("the popup page of docs/payments.md: the widget's message reaches it, and the server says paid (Chromium, a real popup)", async () => {
    const guide = readFileSync('docs/payments.md', 'utf8');
    const block = /```html\n(<!-- Your order page[\s\S]*?)```/.exec(guide)?.[1] ?? '';
    expect(block).toContain('TX_SUBMITTED');
    const { reference, widget } = await order();
    const link = new URL(widget);
    link.searchParams.set('opener', '1'); // the popup's redirect_uri (the snippet's /paid) names the origin
    const html = block
      .replace("'KUDOS_ORIGIN'", JSON.stringify(new URL(kudos.authURL).origin))
      .replace('WIDGET_LINK', link.toString().replaceAll('&', '&amp;'));
    const { context, page } = await signedIn(browser, kudos);
    try {
      // The order page, served on the shop's origin; its fetch('/paid?...') reaches the snippet's server.
      await page.route(`${shop.url}/order`, (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: `<!doctype html><title>order</title>${html}`,
        }),
      );
      await page.goto(`${shop.url}/order`);
      const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#pay')]);
      await popup.waitForLoadState();
      const closed = popup.waitForEvent('close');
      await popup.getByRole('button', { name: 'Confirm' }).click();
      await closed;
      // The page's fetch waits for the notification that holds the transaction (check() waits up to 5 s).
      await expect.poll(() => page.textContent('#pay-result'), { timeout: 15_000 }).toMatch(PAID);
      expect(shop.output).toContain(`order paid: mug ${reference}`);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describeSqlite(
  "the README's payment routes on Express 4, their store failing (the snippet as written)",
  () => {
    it('answers 503 through the error handler and lives on while another process holds the database', async () => {
      // The same compiled snippet, with Express 4 (which does not catch a rejected async route).
      const file = compile('payments');
      const onExpress4 = file.replace(/\.js$/, '-express4.js');
      writeFileSync(onExpress4, readFileSync(file, 'utf8').replace(/from 'express'/, "from 'express4'"));
      const kudos = await startKudosEmulator({ users: USERS, paymentDelayMs: 5 });
      const dir = mkdtempSync(join(tmpdir(), 'readme-express4-'));
      const db = join(dir, 'payments.db');
      const shop = await runSnippet(onExpress4, {
        KUDOS_BASE_URL: kudos.baseURL,
        KUDOS_AUTH_URL: kudos.authURL,
        KUDOS_CHAIN_URL: kudos.chainURL,
        KUDOS_SHOP_WALLET: kudos.walletOf('bobby'),
        KUDOS_PAYMENTS_DB: db,
      });
      const { DatabaseSync } = await import('node:sqlite');
      const holder = new DatabaseSync(db);
      try {
        const made = await fetch(`${shop.url}/orders`, { method: 'POST' });
        expect(made.status).toBe(200);
        const { reference } = (await made.json()) as { reference: string };
        kudos.setWebhook('shop-agent', undefined);
        const tx = kudos.pay({
          from: 'alice',
          to: 'bobby',
          amount: '2',
          via: 'shop-agent',
          remarks: `order ${reference}`,
        });
        await kudos.idle();
        // The store fails: another process holds the database's write lock.
        holder.exec('PRAGMA busy_timeout = 100; BEGIN EXCLUSIVE');
        // Express's error handler answers the error's status: 503 store_unavailable, retry later.
        expect((await fetch(`${shop.url}/orders`, { method: 'POST' })).status).toBe(503);
        const paid = await fetch(`${shop.url}/paid?state=${reference}&tx_hash=${tx.txHash}`);
        expect([200, 503]).toContain(paid.status);
        expect(shop.child.exitCode).toBeNull(); // still running
        holder.exec('ROLLBACK');
        expect((await fetch(`${shop.url}/orders`, { method: 'POST' })).status).toBe(200);
        expect(
          await (await fetch(`${shop.url}/paid?state=${reference}&tx_hash=${tx.txHash}`)).text(),
        ).toMatch(PAID);
      } finally {
        holder.close();
        shop.child.kill('SIGTERM');
        await kudos.close();
        rmSync(dir, { recursive: true, force: true });
        rmSync(onExpress4, { force: true });
      }
    }, 60_000);
  },
);

describeSqlite('the low-level snippet of docs/payments.md (kudosWebhook), run against the emulator', () => {
  let kudos: KudosEmulator;
  let shop: Awaited<ReturnType<typeof runSnippet>>;
  let dir: string;
  beforeAll(async () => {
    const file = compile('webhook');
    kudos = await startKudosEmulator({ users: USERS, paymentDelayMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'readme-webhook-'));
    shop = await runSnippet(file, {
      KUDOS_CHAIN_URL: kudos.chainURL,
      KUDOS_SHOP_WALLET: kudos.walletOf('bobby'),
      KUDOS_WEBHOOK_DB: join(dir, 'webhook.db'),
    });
    kudos.setWebhook('shop-agent', `${shop.url}/webhooks/kudos?token=${SECRET}`);
  }, SNIPPET_HOOK_MS);
  afterAll(async () => {
    shop?.child.kill('SIGTERM');
    await kudos?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('tells a payment to the shop’s wallet (with the memo the chain records) from an edited link’s', async () => {
    const paid = kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
      remarks: 'order 7',
    });
    const elsewhere = kudos.pay({ from: 'alice', to: 'mallory-alt', amount: '1000', via: 'shop-agent' });
    await kudos.idle();
    await expect.poll(() => shop.output).toContain(`paid: ${paid.txHash} 2000000000 memo=order 7`);
    await expect
      .poll(() => shop.output)
      .toContain(
        `not paid: ${elsewhere.txHash} success (the transaction pays none of the shop's wallets (it paid ${kudos.walletOf('mallory-alt', 'kudos')}))`,
      );
  });
});

describeSqlite("the README's try-it block, its lines run as written (on free ports)", () => {
  it('the emulator bin from its line, the shop with its environment, an order paid in Chromium: /paid says paid', async () => {
    const { env, commands } = shellRecipe(readFileSync('README.md', 'utf8'), '# 1. The emulator');
    expect(Object.keys(env).sort()).toEqual(['KUDOS_SHOP_WALLET', 'KUDOS_WEBHOOK_SECRET']);
    const [emulatorLine, shopLine, orderLine] = commands;
    expect(shopLine).toBe('npx tsx shop.ts'); // the snippet, which this test compiles and runs
    expect(orderLine).toBe('curl -s -X POST http://localhost:3001/orders');
    // The shop's port is bound (port 0) before anything starts and handed to the shop's process,
    // never released: the README's emulator line names the shop's URL, so it is known first.
    const shopSocket = await handPort();
    const shopPort = shopSocket.port;
    const here = (line: string) => line.replaceAll('localhost:3001', `localhost:${shopPort}`);
    const emulator = await startEmulatorLine(here(emulatorLine as string), env);
    const banner = emulator.banner();
    const dir = mkdtempSync(join(tmpdir(), 'readme-try-'));
    const browser = await launchChromium();
    let shop: Awaited<ReturnType<typeof runSnippet>> | undefined;
    try {
      const { authURL } = emulator;
      expect(banner).toContain(env.KUDOS_SHOP_WALLET); // bobby's wallet, as the banner lists it
      shop = await runSnippet(
        compile('payments'),
        {
          ...env,
          SHOP_URL: `http://localhost:${shopPort}`,
          KUDOS_AUTH_URL: authURL,
          KUDOS_BASE_URL: `${authURL}/api`,
          KUDOS_CHAIN_URL: `${authURL}/chain`,
          KUDOS_PAYMENTS_DB: join(dir, 'payments.db'), // (the snippet's default is the working folder)
        },
        shopSocket,
      );
      const { widget } = (await (
        await fetch(here((orderLine as string).split(' ').at(-1) as string), { method: 'POST' })
      ).json()) as {
        widget: string;
      };
      const { context, page } = await signedIn(browser, { authURL } as KudosEmulator);
      try {
        await page.goto(widget);
        await Promise.all([
          page.waitForURL(`http://localhost:${shopPort}/paid?**`),
          page.getByRole('button', { name: 'Confirm' }).click(),
        ]);
        expect(await page.textContent('body')).toMatch(PAID);
        await expect.poll(() => shop?.output).toContain('order paid: mug ');
      } finally {
        await context.close();
      }
    } finally {
      await browser.close();
      shop?.child.kill('SIGTERM');
      await emulator.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
