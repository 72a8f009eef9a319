/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_WAIT_MS, launchChromium } from '../../../../test/helpers/chromium.js';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';
import { startWebhookSink, type WebhookSink } from '../../../../test/helpers/webhook-sink.js';

const SHOTS = 'test-results/screenshots';

describe('the emulator home page in a real browser (Chromium through playwright-core)', () => {
  let kudos: KudosEmulator;
  let sink: WebhookSink;
  let refusing: Listening;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    sink = await startWebhookSink();
    // A shop whose webhook refuses every delivery (a secret that no longer matches).
    refusing = await listenLocal(
      http.createServer((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"code":"invalid_secret"}');
      }),
    );
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [
        { id: 'shop-agent', webhookURL: sink.url },
        { id: 'strict-agent', webhookURL: refusing.url },
      ],
      paymentDelayMs: 5,
      webhook: { attempts: 1 },
    });
    kudos.pay({ from: 'alice', to: 'bobby', amount: '3', via: 'shop-agent' });
    await kudos.idle();
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'strict-agent' });
    await kudos.idle();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await kudos?.close();
    await sink?.close();
    await refusing?.close();
  });

  it('shows clients, users, agents with webhook and wallet, transactions, and deliveries with a working Resend button', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    await page.goto(kudos.authURL);
    expect(await page.locator('#clients').textContent()).toContain('kudos-demo-client');
    // Wallets in the spelling the README configures (kudos1…), the legacy one beside it.
    expect(await page.locator('#users').textContent()).toMatch(/bobby.*kudos1.*cosmos1/s);
    const agents = (await page.locator('#agents').textContent()) ?? '';
    expect(agents).toContain('shop-agent');
    // The wallet, shortened, with the whole address on hover.
    expect(await page.locator('#agents code.short').first().getAttribute('title')).toMatch(
      /^kudos1[02-9ac-hj-np-z]{38}$/,
    );
    expect(agents).toContain('token=REDACTED'); // the webhook URL, without its secret
    expect(agents).not.toContain('agent-secret');
    const [tx] = kudos.deliveries;
    const rows = page.locator('#deliveries tbody tr');
    expect(await rows.count()).toBe(2);
    // Each delivery's own answer in its status column: the refused one reads as refused, not `success`.
    expect(await rows.nth(0).locator('.delivery-status').textContent()).toBe('refused (401)');
    expect(await rows.nth(1).locator('.delivery-status').textContent()).toBe('delivered (200)');
    expect(await page.locator('#deliveries thead').textContent()).toContain('time (wall clock)');
    expect(await page.locator('#transactions thead').textContent()).toContain('time (emulator clock)');
    const shopRow = rows.nth(1);
    // At 1280 and 1920 px the card uses the window's width and every table fits in it: nothing is
    // cut off (long routes wrap, hashes and wallets show their first characters, the whole on hover).
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: `${SHOTS}/emulator-home-${width}.png`, fullPage: true });
      const widths = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        view: window.innerWidth,
        main: document.querySelector('main')?.getBoundingClientRect().width ?? 0,
        overflowing: Array.from(document.querySelectorAll('.scroll'))
          .filter((d) => d.scrollWidth > d.clientWidth + 1)
          .map((d) => d.querySelector('table')?.id),
      }));
      expect(widths.page, `${width} px`).toBeLessThanOrEqual(widths.view);
      expect(widths.main, `${width} px`).toBeGreaterThan(width - 100); // the window's width
      expect(widths.overflowing, `${width} px`).toEqual([]);
    }
    const hash = page.locator('#transactions tbody tr').nth(1).locator('code.short').first();
    expect(await hash.getAttribute('title')).toBe(tx?.txHash);
    expect(((await hash.textContent()) ?? '').length).toBeLessThan(16);
    const icon = await page.evaluate(async () => {
      const res = await fetch('/favicon.ico');
      return { status: res.status, type: res.headers.get('content-type') };
    });
    expect(icon).toEqual({ status: 200, type: 'image/svg+xml' });
    expect(await shopRow.locator('td').first().textContent()).toMatch(/^\d+$/); // the delivery ID
    const received = sink.received.length;
    await shopRow.getByRole('button', { name: 'Resend' }).click();
    await page.waitForURL(`${kudos.authURL}/`);
    await kudos.idle();
    expect(sink.received.length).toBe(received + 1);
    await page.reload();
    expect(await rows.count()).toBe(3);
    expect(await page.locator('#deliveries').textContent()).toContain('2'); // attempt 2
    await page.close();
  });
});
