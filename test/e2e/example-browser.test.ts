/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startExample } from '../../example/start.js';
import { BROWSER_WAIT_MS, launchChromium } from '../helpers/chromium.js';
import { exampleEnv } from '../helpers/example-env.js';
import { listenLocal } from '../helpers/listen.js';

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
   * Clicks "Sign in with Kudos" and plays the user on the emulator's pages. The consent page shows
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
    await page.getByRole('link', { name: 'Sign in with Kudos' }).click();
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

  /**
   * Waits for the profile page after a sign-in; when it never comes, fails saying where the browser
   * stopped and what that page said (a failed sign-in lands on the home page with a notice).
   */
  async function atProfile(): Promise<void> {
    try {
      await page.waitForURL(`${example.url}/profile`);
    } catch (error) {
      const said = await page
        .locator('main')
        .textContent({ timeout: 1000 })
        .catch(() => '(no page)');
      throw new Error(`no profile page: the browser is at ${page.url()}, saying: ${said}`, { cause: error });
    }
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    example = await startExample(exampleEnv({ SESSION_SECRET: 'browser-test-session-secret-xxxx' }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await example?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext();
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    page = await context.newPage();
  });
  afterEach(() => context.close());

  it('shows a "Sign in with Kudos" button on the home page', async () => {
    await page.goto(example.url);
    const button = page.getByRole('link', { name: 'Sign in with Kudos' });
    await expect.poll(() => button.isVisible()).toBe(true);
    expect(await button.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(91, 43, 214)');
    await shot('home');
  });

  it('logs in and accepts: the profile shows the display name, ID, expiry, scopes, and the avatar loads', async () => {
    await logIn();
    await atProfile();
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
    await page.waitForURL(`${example.url}/?notice=declined`);
    expect(await page.locator('#message').textContent()).toBe(
      'You declined to sign in with Kudos. You can try again any time.',
    );
    expect(await page.getByRole('link', { name: 'Sign in with Kudos' }).isVisible()).toBe(true);
    await shot('declined');
    await page.goto(`${example.url}/profile`);
    await page.waitForURL(`${example.url}/?notice=login`);
  });

  it('logs out, and a second login skips the emulator’s password', async () => {
    await logIn();
    await atProfile();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${example.url}/`);
    expect(await page.getByRole('link', { name: 'Sign in with Kudos' }).isVisible()).toBe(true);
    await page.goto(`${example.url}/profile`);
    await page.waitForURL(`${example.url}/?notice=login`);
    await logIn({ expectPassword: false });
    await atProfile();
    expect(await page.locator('#display-name').textContent()).toBe('Alice Liddell');
  });

  it('signs in as someone else by the pages alone: out of the example, out of Kudos and back, in as bobby', async () => {
    await logIn();
    await atProfile();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${example.url}/`);
    // Kudos remembers alice (and her consent): the home page's link signs out of Kudos, whose page
    // asks once and sends the browser back here. No address typed from here on: links and buttons.
    await page.getByRole('link', { name: 'log out of Kudos' }).click();
    expect(await page.locator('#user').textContent()).toBe('alice');
    await shot('emulator-logout');
    await Promise.all([
      page.waitForURL(`${example.url}/`),
      page.getByRole('button', { name: 'Log out' }).click(),
    ]);
    await page.getByRole('link', { name: 'Sign in with Kudos' }).click();
    await page.getByLabel('Username').fill('bobby');
    await page.getByLabel('Password').fill('builder');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect
      .poll(
        async () =>
          page.url().startsWith(`${example.url}/profile`) || (await page.locator('#client-name').count()) > 0,
      )
      .toBe(true);
    if (!page.url().startsWith(example.url)) await page.getByRole('button', { name: 'Accept' }).click();
    await atProfile();
    expect(await page.locator('#display-name').textContent()).toBe('Bob Builder');
  });

  it('calls the emulator’s authenticated API with the access token and shows the answer', async () => {
    await logIn();
    await atProfile();
    // Its buttons in the page's font, like its links (a <button> does not inherit it by default).
    const fonts = await page.evaluate(() =>
      ['#call-api', '#tip'].map((id) => getComputedStyle(document.querySelector(id) as Element).fontFamily),
    );
    expect(fonts[0]).toBe(fonts[1]);
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

  it('tips through the widget and the payment appears on the payer’s "Your tips", saying thank you once', async () => {
    await logIn();
    await atProfile();
    await page.getByRole('link', { name: 'Tip with Kudos' }).click();
    expect(await page.locator('#pay-to').textContent()).toBe('bobby');
    expect(await page.locator('#pay-via').textContent()).toBe('kudos-example-agent');
    await shot('widget');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/tip\/done\?/);
    const txHash = new URL(page.url()).searchParams.get('tx_hash') ?? '';
    const said = (await page.locator('#tip-result').textContent()) ?? '';
    expect(said).toContain('Thank you! Your tip of 1 KUDOS was received.'); // blocking: confirmed on return
    expect(said).toContain(txHash);
    expect((await page.locator('main').textContent())?.match(/Thank you/g)).toHaveLength(1);
    await page.getByRole('link', { name: 'Your tips' }).first().click();
    expect(await page.locator('h1').textContent()).toBe('Your tips');
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('tr.payment').first().textContent();
        },
        { timeout: BROWSER_WAIT_MS, interval: 250 },
      )
      .toContain('paid');
    const row = (await page.locator('tr.payment').first().textContent()) ?? '';
    expect(row).toContain(txHash.slice(0, 12));
    expect(row).toContain('alice');
    expect(row).toContain('1 KUDOS');
    await shot('payments');
  });
  it('tips in a popup: the widget posts its message to the page, which records the tip as paid', async () => {
    await logIn();
    await atProfile();
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('link', { name: 'Tip in a popup' }).click(),
    ]);
    await popup.waitForLoadState();
    expect(new URL(popup.url()).searchParams.get('opener')).toBe('1');
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Confirm' }).click();
    await closed; // the widget posted its message and closed itself
    const result = page.locator('#tip-popup-result[data-status]');
    await expect.poll(() => result.getAttribute('data-status')).toBe('paid');
    expect(await result.textContent()).toBe('Thank you! Your tip of 1 KUDOS was received.');
    await shot('tip-popup');
    await page.goto(`${example.url}/payments`);
    const rows = page.locator('tr.payment');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    expect(await rows.first().locator('td.paid').textContent()).toBe('paid');
  });

  it('refuses to be framed by another origin (frame-ancestors), with the session cookie', async () => {
    await logIn();
    await atProfile();
    // Another port of the same host is another origin of the same site: the browser sends the
    // session cookie (SameSite=Lax) with the frame's request, so the profile itself is what it refuses.
    const other = await listenLocal(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          `<!doctype html><title>other</title><iframe id="framed" src="${example.url}/profile"></iframe>`,
        );
      }),
    );
    const otherURL = other.url.replace('127.0.0.1', new URL(example.url).hostname);
    try {
      const response = page.waitForResponse(`${example.url}/profile`);
      await page.goto(otherURL); // its load event waits for the frame's, refused or shown
      const framedProfile = await response;
      expect(framedProfile.status()).toBe(200); // signed in: the profile was sent, with its header
      expect(framedProfile.headers()['content-security-policy']).toBe("frame-ancestors 'self'");
      const frames = page.frames().filter((frame) => frame !== page.mainFrame());
      expect(frames).toHaveLength(1);
      expect(await frames[0]?.locator('#display-name').count()).toBe(0);
    } finally {
      await other.close();
    }
    // The shop's own pages may frame it (same origin): there the profile shows.
    await page.goto(example.url);
    await page.evaluate((src) => {
      const frame = document.createElement('iframe');
      frame.src = src;
      document.body.append(frame);
    }, `${example.url}/profile`);
    await page.frameLocator('iframe').locator('#display-name').waitFor();
    expect(await page.frameLocator('iframe').locator('#display-name').textContent()).toBe('Alice Liddell');
    const same = await page.request.get(`${example.url}/profile`);
    expect(same.headers()['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('ignores a message from another origin, or one that is not the widget’s string', async () => {
    await logIn();
    await atProfile();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/tip/popup')) posts.push(request.url());
    });
    // The page itself (another origin than Kudos) and a Kudos-like object message.
    await page.evaluate(() => {
      window.postMessage(JSON.stringify({ action: 'TX_SUBMITTED', data: { tx_hash: 'A'.repeat(64) } }), '*');
      window.postMessage({ action: 'TX_SUBMITTED', data: { tx_hash: 'A'.repeat(64) } }, '*');
    });
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(posts).toEqual([]);
    expect(await page.locator('#tip-popup-result').textContent()).toBe('');
  });
});
