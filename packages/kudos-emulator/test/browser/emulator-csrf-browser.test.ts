/// <reference lib="dom" />
import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_WAIT_MS, launchChromium } from '../../../../test/helpers/chromium.js';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { type Listening, listenLocal } from '../../../../test/helpers/listen.js';
import { startWebhookSink, type WebhookSink } from '../../../../test/helpers/webhook-sink.js';

// No web page may steer the emulator: a page on another port tries every blind request a browser
// allows (no-cors fetches with a text/plain JSON body, a text/plain form, a form without the home
// page's token), and a DNS-rebinding host reads nothing. Nothing changes.
describe('a page of another site cannot drive the emulator (Chromium)', () => {
  let kudos: KudosEmulator;
  let sink: WebhookSink;
  let attacker: Listening;
  let browser: Browser;

  beforeAll(async () => {
    sink = await startWebhookSink();
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: sink.url }],
      paymentDelayMs: 1,
    });
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const target = kudos.authURL;
    const json = (body: object) => JSON.stringify(body).replace(/'/g, "\\'");
    attacker = await listenLocal(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><title>a page you visit</title>
<iframe name="sink" style="display:none"></iframe>
<form id="users" method="post" action="${target}/_emulator/users" enctype="text/plain" target="sink">
<input name='{"id":"mallory1","password":"x","pad":"' value='"}'></form>
<form id="resend" method="post" action="${target}/_emulator/deliveries/1/resend" target="sink"></form>
<form id="register" method="post" action="${target}/in/register" target="sink">
<input name="username" value="mallory3"><input name="password" value="mallory-password"><input name="next" value="/in/account"></form>
<form id="login" method="post" action="${target}/in/login" target="sink">
<input name="username" value="alice"><input name="password" value="wonderland"><input name="next" value="/in/account"></form>
<script>
const blind = (path, body) => fetch('${target}' + path, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body });
Promise.allSettled([
  blind('/_emulator/clients', '${json({ clientID: 'evil-client', clientSecret: 'x', redirectURI: 'https://evil.example/cb' })}'),
  blind('/_emulator/payments', '${json({ from: 'alice', to: 'bobby', amount: '5' })}'),
  blind('/_emulator/clock/advance', '${json({ advance: '1h' })}'),
  blind('/_emulator/users', '${json({ id: 'mallory2', password: 'x' })}'),
]).then(() => {
  document.getElementById('users').submit();
  setTimeout(() => {
    document.getElementById('resend').submit();
    setTimeout(() => {
      document.getElementById('register').submit();
      setTimeout(() => { document.getElementById('login').submit(); setTimeout(() => { window.done = true; }, 300); }, 300);
    }, 300);
  }, 300);
});
</script>`);
      }),
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await attacker?.close();
    await kudos?.close();
    await sink?.close();
  });

  it('changes nothing: no client, user, payment, clock move or resend', async () => {
    const before = {
      clock: kudos.now(),
      deliveries: kudos.deliveries.length,
      transactions: (await (await fetch(`${kudos.authURL}/_emulator/state`)).json()).transactions.length,
    };
    const page = await browser.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    await page.goto(attacker.url);
    await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true);
    await page.close();
    await kudos.idle();
    const state = await (await fetch(`${kudos.authURL}/_emulator/state`)).json();
    expect(state.clients.map((c: { clientID: string }) => c.clientID)).not.toContain('evil-client');
    expect(state.users.map((u: { id: string }) => u.id)).not.toEqual(expect.arrayContaining(['mallory1']));
    expect(state.users.map((u: { id: string }) => u.id)).not.toContain('mallory2');
    expect(state.users.map((u: { id: string }) => u.id)).not.toContain('mallory3'); // register form: no token
    expect(state.transactions).toHaveLength(before.transactions);
    expect(kudos.deliveries).toHaveLength(before.deliveries);
    expect(kudos.now() - before.clock).toBeLessThan(60_000); // not moved by an hour
  });

  it('a login form posted from another site does not sign the browser in (login CSRF)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(attacker.url);
    await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true);
    const account = await context.request.get(`${kudos.authURL}/in/account`, { maxRedirects: 0 });
    expect(account.status()).toBe(302); // still signed out: sent to the login page
    await context.close();
  });

  it('cookie tossing: a page on another port of 127.0.0.1 sets the form cookie itself, and still cannot register or sign in', async () => {
    const target = kudos.authURL;
    const tosser = await listenLocal(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        // Cookies ignore ports: this page can set the emulator's form cookie to a value it knows.
        res.end(`<!doctype html><title>tosser</title>
<iframe name="sink" style="display:none"></iframe>
<form id="register" method="post" action="${target}/in/register" target="sink">
<input name="username" value="mallory-toss"><input name="password" value="mallory-password">
<input name="form_token" value="tossed-token-0123456789"><input name="next" value="/in/account"></form>
<script>
document.cookie = 'kudos_emulator_form=tossed-token-0123456789; path=/';
document.getElementById('register').submit();
setTimeout(() => { window.done = true; }, 500);
</script>`);
      }),
    );
    try {
      expect(new URL(tosser.url).hostname).toBe(new URL(target).hostname); // same host, another port
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(BROWSER_WAIT_MS);
      await page.goto(tosser.url);
      await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true);
      const cookies = await context.cookies(target);
      expect(cookies.find((c) => c.name === 'kudos_emulator_form')?.value).toBe('tossed-token-0123456789');
      const state = await (await fetch(`${target}/_emulator/state`)).json();
      expect(state.users.map((u: { id: string }) => u.id)).not.toContain('mallory-toss');
      const account = await context.request.get(`${target}/in/account`, { maxRedirects: 0 });
      expect(account.status()).toBe(302); // not signed in to mallory's account
      // The emulator's own register page in the same browser still works.
      await page.goto(`${target}/in/register`);
      await page.fill('input[name=username]', 'honest-user');
      await page.fill('input[name=password]', 'honest-password');
      await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
      const after = await (await fetch(`${target}/_emulator/state`)).json();
      expect(after.users.map((u: { id: string }) => u.id)).toContain('honest-user');
      await context.close();
    } finally {
      await tosser.close();
    }
  });

  it('the home page itself still resends with its own form', async () => {
    const page = await browser.newPage();
    await page.goto(kudos.authURL);
    const before = kudos.deliveries.length;
    await page.locator('#deliveries tbody tr').first().getByRole('button', { name: 'Resend' }).click();
    await page.waitForURL(`${kudos.authURL}/`);
    await kudos.idle();
    expect(kudos.deliveries.length).toBe(before + 1);
    await page.close();
  });

  it('answers a request for another Host (DNS rebinding) with 403, on every route', async () => {
    const port = Number(new URL(kudos.authURL).port);
    for (const path of ['/_emulator/state', '/', '/api/users/id/alice/min']) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, path, headers: { host: `rebind.test:${port}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status, path).toBe(403);
    }
    expect((await fetch(`http://localhost:${port}/`)).status).toBe(200);
    // A name given with allowedHosts (--host-allow) is answered.
    const named = await startKudosEmulator({ allowedHosts: ['kudos.dev.test'] });
    try {
      const namedPort = Number(new URL(named.authURL).port);
      const statuses = await Promise.all(
        ['kudos.dev.test', 'other.dev.test'].map(
          (host) =>
            new Promise<number>((resolve, reject) => {
              const req = http.request(
                { host: '127.0.0.1', port: namedPort, path: '/', headers: { host } },
                (res) => {
                  res.resume();
                  resolve(res.statusCode ?? 0);
                },
              );
              req.on('error', reject);
              req.end();
            }),
        ),
      );
      expect(statuses).toEqual([200, 403]);
    } finally {
      await named.close();
    }
  });

  it('refuses admin changes that are not JSON, and JSON from another origin', async () => {
    const post = (type: string, origin?: string) =>
      fetch(`${kudos.authURL}/_emulator/users`, {
        method: 'POST',
        headers: { 'content-type': type, ...(origin ? { origin } : {}) },
        body: JSON.stringify({ id: 'plain-text', password: 'x' }),
      });
    expect([(await post('text/plain')).status, (await post('text/plain')).status]).toEqual([415, 415]);
    expect((await post('application/json', 'http://127.0.0.1:1')).status).toBe(403);
    expect((await post('application/json', kudos.authURL)).status).toBe(201);
  });
});
