/// <reference lib="dom" />

import http from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/testing/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { type Listening, listenLocal } from '../helpers/listen.js';

// opener=1 (docs/kudos-service.md#payment-widget): the widget hands its result to the page that
// opened it, by postMessage with action TX_SUBMITTED and the transaction hash, and closes.
describe('the payment widget with opener=1 in a real browser (Chromium)', () => {
  let kudos: KudosEmulator;
  let shop: Listening;
  let browser: Browser;

  beforeAll(async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5 });
    // The shop's page, on another origin: it opens the widget and records what comes back.
    shop = await listenLocal(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><title>shop</title><script>
window.received = [];
window.addEventListener('message', (e) => window.received.push({ origin: e.origin, data: e.data }));
</script>`);
      }),
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await kudos?.close();
    await shop?.close();
  });

  it('posts { action: TX_SUBMITTED, txHash } to window.opener and closes, without redirecting', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    // Sign in at the emulator first (the popup shares the browser's cookies).
    await page.goto(`${kudos.authURL}/in/login`);
    await page.fill('input[name=username]', 'alice');
    await page.fill('input[name=password]', 'wonderland');
    await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
    await page.goto(shop.url);
    const widgetURL = `${kudos.authURL}/in/widget/pay?to=bobby&amount=1&opener=1`;
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      page.evaluate((url) => void window.open(url, 'kudos-pay'), widgetURL),
    ]);
    await popup.waitForLoadState();
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Confirm' }).click();
    await closed;
    await page.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0);
    const received = await page.evaluate(() => (window as unknown as { received: unknown[] }).received);
    await kudos.idle();
    expect(kudos.deliveries).toHaveLength(0); // no via: no notification
    expect(received).toEqual([
      {
        origin: kudos.authURL,
        data: {
          action: 'TX_SUBMITTED',
          txHash: expect.stringMatching(/^[0-9A-F]{64}$/),
          data: expect.any(Object),
        },
      },
    ]);
    const { txHash } = (received[0] as { data: { txHash: string } }).data;
    expect((await fetch(`${kudos.baseURL}/tx/id/${txHash}`)).status).toBe(200);
    await context.close();
  });
});
