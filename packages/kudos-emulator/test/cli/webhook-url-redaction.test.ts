import http from 'node:http';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli } from '../../../../test/helpers/cli.js';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { ADMIN_SESSION_MS, AdminSessions } from '../../src/admin-sessions.js';

// A webhook secret carried as the last path segment (which the receiver accepts) is never shown:
// not on the home page, in the admin API's state and deliveries, nor in the start banner.
const SECRET = 'path-secret-0123456789abc';
const HOOK = `http://127.0.0.1:9/webhooks/kudos/${SECRET}`;

describe('the emulator redacts a secret in a webhook URL path everywhere it shows the URL', () => {
  let kudos: KudosEmulator | undefined;
  afterEach(async () => {
    await kudos?.close();
  });

  it('on the home page, in /_emulator/state and /_emulator/deliveries', async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: HOOK }],
      paymentDelayMs: 1,
      webhook: { attempts: 1 },
    });
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    for (const path of ['/', '/_emulator/state', '/_emulator/deliveries']) {
      const text = await (await fetch(`${kudos.authURL}${path}`)).text();
      expect(text, path).not.toContain(SECRET);
      expect(text, path).toContain('/webhooks/kudos/REDACTED');
    }
    // Short last segments are paths, not secrets: shown as they are.
    kudos.setWebhook('shop-agent', 'http://127.0.0.1:9/webhooks/kudos');
    expect(await (await fetch(`${kudos.authURL}/_emulator/state`)).text()).toContain(
      'http://127.0.0.1:9/webhooks/kudos',
    );
  });

  it('in the start banner', async () => {
    const started = startCli(['--port', '0', '--quiet', '--agent', `shop-agent=${HOOK}`]);
    const banner = await started.output;
    started.child.kill('SIGTERM');
    await started.exit;
    expect(banner).toContain('shop-agent');
    expect(banner).not.toContain(SECRET);
    expect(banner).toContain('/webhooks/kudos/REDACTED');
  });
});

describe('the home page behind --admin-token', () => {
  it('shows only with the token: opened once as /?admin_token=, then by its cookie', async () => {
    const { CookieClient, locationOf } = await import('../../../../test/helpers/cookie-client.js');
    const kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: HOOK }],
      adminToken: 'admin-token-0123456789',
      paymentDelayMs: 1,
      webhook: { attempts: 1 },
    });
    try {
      kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle();
      const browser = new CookieClient();
      const refused = await browser.get(`${kudos.authURL}/`);
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain('shop-agent');
      await browser.get(`${kudos.authURL}/?admin_token=wrong-token-0123456789`);
      expect((await browser.get(`${kudos.authURL}/`)).status).toBe(401);
      const opened = await browser.get(`${kudos.authURL}/?admin_token=admin-token-0123456789`);
      expect(locationOf(opened, kudos.authURL).pathname).toBe('/');
      // The cookie is a random session, never the token: cookies reach every port of the host, and a
      // server on another port that reads it learns nothing it could use elsewhere.
      const cookie = opened.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^kudos_emulator_admin=[A-Za-z0-9_-]{43};/);
      expect(cookie).not.toContain('admin-token-0123456789');
      const forged = await fetch(`${kudos.authURL}/_emulator/state`, {
        headers: { cookie: 'kudos_emulator_admin=admin-token-0123456789' },
      });
      expect(forged.status).toBe(401); // the token itself is no session
      const home = await browser.get(`${kudos.authURL}/`);
      expect(home.status).toBe(200);
      // Bound to the origin it was opened on: replayed under another name of the emulator, or from a
      // page of another origin, the same cookie opens nothing.
      const session = /^kudos_emulator_admin=([^;]+)/.exec(cookie)?.[1] ?? '';
      const port = new URL(kudos.authURL).port;
      const asked = (headers: Record<string, string>) =>
        statusOf(`${kudos?.authURL}/_emulator/state`, headers);
      const own = { cookie: `kudos_emulator_admin=${session}` };
      expect(await asked(own)).toBe(200);
      expect(await asked({ ...own, host: `localhost:${port}` })).toBe(401);
      expect(await asked({ ...own, origin: 'http://evil.example' })).toBe(401);
      expect(await asked({ ...own, origin: `http://127.0.0.1:${port}` })).toBe(200);
      expect(cookie).toContain(`Max-Age=${ADMIN_SESSION_MS / 1000}`);
      const html = await home.text();
      expect(html).toContain('shop-agent');
      // Its Resend button works with the cookie and the page's token.
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
      const resent = await browser.postForm(`${kudos.authURL}/_emulator/deliveries/1/resend`, { csrf });
      expect(resent.status).toBe(303);
      expect(
        (await new CookieClient().postForm(`${kudos.authURL}/_emulator/deliveries/1/resend`, { csrf }))
          .status,
      ).toBe(401);
    } finally {
      await kudos.close();
    }
  });
});

describe('admin sessions', () => {
  it(`end ${ADMIN_SESSION_MS / 3_600_000} hours after the token opened them, and expired ones are forgotten`, () => {
    let now = 1_000_000;
    const sessions = new AdminSessions(() => now);
    const id = sessions.open('127.0.0.1:4000');
    expect(sessions.has(id, '127.0.0.1:4000', undefined)).toBe(true);
    expect(sessions.has(id, '127.0.0.1:4000', 'https://127.0.0.1:4000')).toBe(true); // behind a TLS proxy
    expect(sessions.has(id, '127.0.0.1:4000', 'https://127.0.0.1:4001')).toBe(false);
    expect(sessions.has(id, 'emulator.example:4000', undefined)).toBe(false);
    now += ADMIN_SESSION_MS - 1;
    expect(sessions.has(id, '127.0.0.1:4000', undefined)).toBe(true);
    now += 1;
    expect(sessions.has(id, '127.0.0.1:4000', undefined)).toBe(false);
    expect(sessions.has('', '127.0.0.1:4000', undefined)).toBe(false);
  });
});

/** The status of a GET with exactly these headers (fetch would not send another Host). */
function statusOf(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
      .on('error', reject);
  });
}
