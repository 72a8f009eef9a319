import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from '../../../test/helpers/cookie-client.js';
import { formFields, PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';
import { startWebhookSink, type WebhookSink } from '../../../test/helpers/webhook-sink.js';

describe('emulator widget: a redirect_uri that looks like a URL but does not parse (regression: 500 after paying)', () => {
  let kudos: KudosEmulator;
  let sink: WebhookSink;
  const browser = new CookieClient();

  beforeAll(async () => {
    sink = await startWebhookSink();
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: sink.url, paymentRedirectURIs: ['https://shop.example/'] }],
      paymentDelayMs: 5,
    });
    await browser.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/in/account',
    });
  });
  afterAll(async () => {
    await kudos.close();
    await sink.close();
  });

  it.each(['http://[', 'https://a b', 'http://a:99999/'])(
    '%s: a 400 page when the widget opens',
    async (redirect) => {
      const res = await browser.get(
        `${kudos.authURL}/in/widget/pay?${new URLSearchParams({ to: 'bobby', amount: '1', via: 'shop-agent', redirect_uri: redirect })}`,
      );
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('&quot;redirect_uri&quot; must be an absolute http(s) URL.');
    },
  );

  it('and a 400 page with no payment when a confirmation is posted with it', async () => {
    const page = await browser.get(
      `${kudos.authURL}/in/widget/pay?${new URLSearchParams({ to: 'bobby', amount: '1', via: 'shop-agent', redirect_uri: 'https://shop.example/' })}`,
    );
    const fields = formFields(await page.text(), '/in/widget/pay');
    const res = await browser.postForm(`${kudos.authURL}/in/widget/pay`, {
      ...fields,
      redirect_uri: 'http://[',
      decision: 'confirm',
    });
    expect(res.status).toBe(400);
    await kudos.idle();
    expect(sink.received).toHaveLength(0);
    expect(kudos.deliveries).toHaveLength(0);
  });
});
