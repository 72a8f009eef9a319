/// <reference lib="dom" />

import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_WAIT_MS, launchChromium } from '../../../../test/helpers/chromium.js';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';

// Popup mode (docs/kudos-service.md#payment-widget): the widget hands its result to the page that
// opened it, one postMessage of a JSON string { action: 'TX_SUBMITTED', data: { tx_hash, ... } } to
// the origin of redirect_uri (whitelisted or not), and closes. The shop's page handles it as a real
// blogging plugin does: JSON.parse(event.data), then data.tx_hash.
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
window.errors = [];
window.addEventListener('message', (e) => {
  try {
    const message = JSON.parse(e.data);
    if (message.action === 'TX_SUBMITTED') window.received.push({ origin: e.origin, raw: e.data, txHash: message.data.tx_hash, data: message.data });
  } catch (error) {
    window.errors.push(String(error));
  }
});
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

  type Received = { origin: string; raw: unknown; txHash: string; data: Record<string, unknown> };

  /** Signs alice in, opens the widget from the shop's page with `query`, confirms; answers the popup and page. */
  async function openPopup(query: string) {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    // Sign in at the emulator first (the popup shares the browser's cookies).
    await page.goto(`${kudos.authURL}/in/login`);
    await page.fill('input[name=username]', 'alice');
    await page.fill('input[name=password]', 'wonderland');
    await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
    await page.goto(shop.url);
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      page.evaluate((url) => void window.open(url, 'kudos-pay'), `${kudos.authURL}/in/widget/pay?${query}`),
    ]);
    await popup.waitForLoadState();
    return { context, page, popup };
  }

  const received = (page: import('playwright-core').Page) =>
    page.evaluate(() => (window as unknown as { received: Received[] }).received);

  it('posts one JSON string { action, data: { tx_hash, state, remarks } } to the redirect_uri origin and closes; no whitelist needed', async () => {
    // bobby has no payment redirect whitelist: without popup mode this redirect_uri is refused.
    const redirect = encodeURIComponent(`${shop.url}/kudos-return`);
    const { context, page, popup } = await openPopup(
      `to=bobby&amount=1&opener=1&redirect_uri=${redirect}&state=post-42&remarks=thanks`,
    );
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Confirm' }).click();
    await closed;
    await page.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0);
    const [message, ...more] = await received(page);
    expect(more).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { errors: string[] }).errors)).toEqual([]);
    expect(message?.origin).toBe(kudos.authURL);
    expect(typeof message?.raw).toBe('string');
    expect(message?.data).toEqual({ tx_hash: message?.txHash, state: 'post-42', remarks: 'thanks' });
    await kudos.idle();
    expect(kudos.deliveries).toHaveLength(0); // no via: no notification
    expect((await fetch(`${kudos.baseURL}/tx/id/${message?.txHash}`)).status).toBe(200);
    await context.close();
  });

  it('any opener but "0" is popup mode; with blocking, data.success says the outcome', async () => {
    const redirect = encodeURIComponent(`${shop.url}/`);
    const { context, page, popup } = await openPopup(
      `to=bobby&amount=1&opener=true&blocking=1&redirect_uri=${redirect}`,
    );
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Confirm' }).click();
    await closed;
    await page.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0);
    const [message] = await received(page);
    // No remarks in the link: the memo as recorded, the service's default, is sent back.
    expect(message?.data).toEqual({ tx_hash: message?.txHash, remarks: 'kudos pay', success: true });
    await context.close();
  });

  it('data.remarks is the memo as recorded: the default with " via AGENT", and left out only for an empty remarks=', async () => {
    const redirect = encodeURIComponent(`${shop.url}/`);
    for (const [query, remarks] of [
      ['via=shop-agent', 'kudos pay via shop-agent'],
      ['via=shop-agent&remarks=', undefined],
    ] as const) {
      const { context, page, popup } = await openPopup(
        `to=bobby&amount=1&opener=1&redirect_uri=${redirect}&${query}`,
      );
      const closed = popup.waitForEvent('close');
      await popup.getByRole('button', { name: 'Confirm' }).click();
      await closed;
      await page.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0);
      const [message] = await received(page);
      expect(message?.data.remarks).toBe(remarks);
      // The same memo is on the transaction record and on the chain.
      const record = (await (await fetch(`${kudos.baseURL}/tx/id/${message?.txHash}`)).json()) as {
        remarks: string;
      };
      expect(record.remarks).toBe(remarks ?? '');
      await context.close();
    }
  });

  it('posts nothing without a redirect_uri: the popup shows the transaction and stays open', async () => {
    const { context, page, popup } = await openPopup('to=bobby&amount=1&opener=1');
    await popup.getByRole('button', { name: 'Confirm' }).click();
    await popup.waitForSelector('#tx-hash');
    const hash = (await popup.textContent('#tx-hash')) ?? '';
    expect(hash).toMatch(/^[0-9A-F]{64}$/);
    expect(popup.isClosed()).toBe(false);
    // In a 480 px popup the whole hash shows, wrapped: nothing of it is cut or scrolled away.
    await popup.setViewportSize({ width: 480, height: 640 });
    const fits = await popup.evaluate(() => {
      const code = document.getElementById('tx-hash') as HTMLElement;
      return (
        code.getBoundingClientRect().right <= window.innerWidth &&
        document.documentElement.scrollWidth <= window.innerWidth
      );
    });
    expect(fits).toBe(true);
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300))); // time for a stray message
    expect(await received(page)).toEqual([]);
    await context.close();
  });

  it('posts nothing when the browser fails to post the metadata (the widget page’s switch): the money moved all the same', async () => {
    const redirect = encodeURIComponent(`${shop.url}/`);
    const { context, page, popup } = await openPopup(`to=bobby&amount=1&opener=1&redirect_uri=${redirect}`);
    await popup.getByLabel(/fails to post the payment's metadata/).check();
    await popup.getByRole('button', { name: 'Confirm' }).click();
    await popup.waitForSelector('#error-code');
    expect(await popup.textContent('#error-code')).toBe('METADATA_NOT_POSTED');
    const hash = (await popup.textContent('#tx-hash')) ?? '';
    expect(popup.isClosed()).toBe(false);
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300))); // time for a stray message
    expect(await received(page)).toEqual([]);
    await kudos.idle();
    const record = (await (await fetch(`${kudos.baseURL}/tx/id/${hash}`)).json()) as { status: string };
    expect(record.status).toBe('success');
    await context.close();
  });
});
