/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/testing/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';

const SHOTS = 'test-results/screenshots';

describe('the emulator home page in a real browser (Chromium through playwright-core)', () => {
  let kudos: KudosEmulator;
  let sink: WebhookSink;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    sink = await startWebhookSink();
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: sink.url }],
      paymentDelayMs: 5,
    });
    kudos.pay({ from: 'alice', to: 'bobby', amount: '3', via: 'shop-agent' });
    await kudos.idle();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await kudos?.close();
    await sink?.close();
  });

  it('shows clients, users, agents with webhook and wallet, transactions, and deliveries with a working Resend button', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(kudos.authURL);
    expect(await page.locator('#clients').textContent()).toContain('kudos-demo-client');
    expect(await page.locator('#users').textContent()).toMatch(/bobby.*cosmos1/s);
    const agents = (await page.locator('#agents').textContent()) ?? '';
    expect(agents).toContain('shop-agent');
    expect(agents).toMatch(/cosmos1[02-9ac-hj-np-z]{38}/);
    expect(agents).toContain('token=REDACTED'); // the webhook URL, without its secret
    expect(agents).not.toContain('agent-secret');
    const [tx] = kudos.deliveries;
    expect(await page.locator('#transactions').textContent()).toContain(tx?.txHash);
    const rows = page.locator('#deliveries tbody tr');
    expect(await rows.count()).toBe(1);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: `${SHOTS}/emulator-home.png`, fullPage: true });
    // At 1280 px the page does not scroll sideways: wide tables scroll inside their card.
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      view: window.innerWidth,
      main: document.querySelector('main')?.getBoundingClientRect().right ?? 0,
      tables: Array.from(document.querySelectorAll('.scroll'), (d) => d.getBoundingClientRect().right),
    }));
    expect(widths.page).toBeLessThanOrEqual(widths.view);
    expect(Math.max(...widths.tables)).toBeLessThanOrEqual(widths.main);
    expect(await rows.first().locator('td').first().textContent()).toMatch(/^\d+$/); // the delivery ID
    const received = sink.received.length;
    await rows.first().getByRole('button', { name: 'Resend' }).click();
    await page.waitForURL(`${kudos.authURL}/`);
    await kudos.idle();
    expect(sink.received.length).toBe(received + 1);
    await page.reload();
    expect(await rows.count()).toBe(2);
    expect(await page.locator('#deliveries').textContent()).toContain('2'); // attempt 2
    await page.close();
  });
});
