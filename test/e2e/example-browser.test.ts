/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startExample } from '../../example/start.js';
import { launchChromium } from '../helpers/chromium.js';
import { exampleEnv } from '../helpers/example-env.js';

// Debian's Chromium, installed by .ci/run with apt-get; never a browser download.
const SHOTS = 'test-results/screenshots';

describe('example app in a real browser (Chromium through playwright-core)', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  }

  /**
   * Clicks "Log in with Kudos" and plays the user on the emulator's pages. The consent page shows
   * only the first time a user authorizes the app (as on the real service); then Kudos sends the
   * browser straight back.
   */
  async function logIn({
    decision = 'Accept',
    expectPassword = true,
    user = 'alice',
    password = 'wonderland',
  } = {}) {
    await page.goto(example.url);
    await page.getByRole('link', { name: 'Log in with Kudos' }).click();
    if (expectPassword) {
      await page.getByLabel('Username').fill(user);
      await page.getByLabel('Password').fill(password);
      await shot('emulator-login');
      await page.getByRole('button', { name: 'Log in' }).click();
    }
    await expect
      .poll(
        async () => page.url().startsWith(example.url) || (await page.locator('#client-name').count()) > 0,
      )
      .toBe(true);
    if (page.url().startsWith(example.url)) return; // authorized before: no consent page
    expect(await page.locator('#client-name').textContent()).toBe('Kudos Example Shop');
    await shot('emulator-consent');
    await page.getByRole('button', { name: decision }).click();
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    example = await startExample(exampleEnv({ SESSION_SECRET: 'browser-test-session-secret' }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await example?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
  });
  afterEach(() => context.close());

  it('shows a "Log in with Kudos" button on the home page', async () => {
    await page.goto(example.url);
    const button = page.getByRole('link', { name: 'Log in with Kudos' });
    await expect.poll(() => button.isVisible()).toBe(true);
    expect(await button.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(91, 43, 214)');
    await shot('home');
  });

  it('logs in and accepts: the profile shows the display name, ID, expiry, scopes, and the avatar loads', async () => {
    await logIn();
    await page.waitForURL(`${example.url}/profile`);
    expect(await page.locator('#display-name').textContent()).toBe('Alice Liddell');
    expect(await page.locator('#user-id').textContent()).toBe('alice');
    expect(await page.locator('#scopes').textContent()).toBe('profile email read:kudos.info');
    const expires = Date.parse((await page.locator('#expires-at').textContent()) ?? '');
    expect(expires - Date.now()).toBeGreaterThan(3500 * 1000);
    const avatar = page.locator('#avatar');
    await expect
      .poll(() => avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
      .toBe(true);
    await shot('profile');
  });

  it('declines: back on the home page with a friendly message, not logged in', async () => {
    await logIn({ decision: 'Decline', user: 'bobby', password: 'builder' }); // a user who never authorized it
    await page.waitForURL(`${example.url}/`);
    expect(await page.locator('#message').textContent()).toBe(
      'You declined to sign in with Kudos. You can try again any time.',
    );
    expect(await page.getByRole('link', { name: 'Log in with Kudos' }).isVisible()).toBe(true);
    await shot('declined');
    await page.goto(`${example.url}/profile`);
    await page.waitForURL(`${example.url}/`);
  });

  it('logs out, and a second login skips the emulator’s password', async () => {
    await logIn();
    await page.waitForURL(`${example.url}/profile`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${example.url}/`);
    expect(await page.getByRole('link', { name: 'Log in with Kudos' }).isVisible()).toBe(true);
    await page.goto(`${example.url}/profile`);
    await page.waitForURL(`${example.url}/`);
    await logIn({ expectPassword: false });
    await page.waitForURL(`${example.url}/profile`);
    expect(await page.locator('#display-name').textContent()).toBe('Alice Liddell');
  });

  it('calls the emulator’s authenticated API with the access token and shows the answer', async () => {
    await logIn();
    await page.waitForURL(`${example.url}/profile`);
    await page.getByRole('button', { name: 'Call the Kudos API' }).click();
    const text = (await page.locator('#api-result').textContent()) ?? '';
    const answer = JSON.parse(text) as { me: Record<string, unknown>; info: Record<string, unknown> };
    expect(answer.me).toMatchObject({
      user: 'alice',
      displayName: 'Alice Liddell',
      email: 'alice@kudos.example',
    });
    expect(answer.info).toMatchObject({ user: 'alice' });
    await shot('api-result');
  });

  it('tips through the widget and the payment appears on "Payments received"', async () => {
    await logIn();
    await page.waitForURL(`${example.url}/profile`);
    await page.getByRole('link', { name: 'Tip with Kudos' }).click();
    expect(await page.locator('#pay-to').textContent()).toBe('bobby');
    expect(await page.locator('#pay-via').textContent()).toBe('kudos-example-agent');
    await shot('widget');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/tip\/done\?/);
    const txHash = new URL(page.url()).searchParams.get('tx_hash') ?? '';
    expect(await page.locator('#tip-result').textContent()).toContain(txHash);
    await page.getByRole('link', { name: 'Payments received' }).first().click();
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('tr.payment').first().textContent();
        },
        { timeout: 10_000, interval: 250 },
      )
      .toContain('paid');
    const row = (await page.locator('tr.payment').first().textContent()) ?? '';
    expect(row).toContain(txHash.slice(0, 12));
    expect(row).toContain('alice');
    expect(row).toContain('1 KUDOS');
    expect(row).toContain('success');
    await shot('payments');
  });
});
