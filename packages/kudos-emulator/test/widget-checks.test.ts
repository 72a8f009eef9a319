import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { formFields, PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';
import { WIDGET_PARAMS } from '../../kudos-core/src/chain/widget.js';

// The widget's checks as the service makes them (docs/kudos-service.md#payment-widget, the fourth
// reading), one test per behaviour, over real HTTP.
const SHOP = 'https://shop.example/paid';

describe('the payment widget checks its parameters as the service does', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS.map((u) => (u.id === 'bobby' ? { ...u, paymentRedirectURIs: [SHOP] } : u)),
      paymentDelayMs: 5,
    });
  });
  afterAll(() => kudos.close());

  const widget = (query: string) => `${kudos.authURL}/in/widget/pay${query}`;

  async function signedIn(): Promise<CookieClient> {
    const browser = new CookieClient();
    await browser.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/in/account',
    });
    return browser;
  }

  /** Opens the widget as alice and confirms; answers the confirmation's response. */
  async function pay(query: string): Promise<Response> {
    const browser = await signedIn();
    const page = await browser.get(widget(query));
    expect(page.status).toBe(200);
    const fields = formFields(await page.text(), '/in/widget/pay');
    return browser.postForm(widget(''), { ...fields, decision: 'confirm' });
  }

  it('checks the parameters before sign-in: a signed-out payer with no amount sees INVALID_AMOUNT', async () => {
    const res = await new CookieClient().get(widget('?to=bobby'));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('INVALID_AMOUNT');
    // Good parameters, signed out: then the sign-in page.
    const ok = await new CookieClient().get(widget('?to=bobby&amount=1'));
    expect(locationOf(ok, kudos.authURL).pathname).toBe('/in/login');
  });

  it.each([
    ['an unknown to', '?to=nobody-here&amount=1'],
    ['an unknown receiver among several', '?to=bobby,nobody-here&amount=1,1&via=shop-agent'],
    ['an unknown via', '?to=bobby&amount=1&via=nobody-here'],
  ])('answers %s with 404 RECEIPIENT_NOT_FOUND, signed in or not', async (_name, query) => {
    for (const browser of [new CookieClient(), await signedIn()]) {
      const res = await browser.get(widget(query));
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('RECEIPIENT_NOT_FOUND');
    }
  });

  it("redirects a widget with no query at all to a page documenting the widget's parameters", async () => {
    const res = await new CookieClient().get(widget(''));
    const target = locationOf(res, kudos.authURL);
    expect(res.status).toBe(302);
    const page = await (await fetch(target)).text();
    for (const name of WIDGET_PARAMS) expect(page).toContain(`<code>${name}</code>`);
  });

  it('keeps an empty remarks= empty and adds neither it nor an empty state= to the redirect', async () => {
    const back = locationOf(
      await pay(`?to=bobby&amount=1&remarks=&state=&redirect_uri=${encodeURIComponent(SHOP)}`),
    );
    expect([...back.searchParams.keys()].sort()).toEqual(['tx_hash']);
    const record = (await (
      await fetch(`${kudos.baseURL}/tx/id/${back.searchParams.get('tx_hash')}`)
    ).json()) as {
      remarks: string;
    };
    expect(record.remarks).toBe('');
    // Absent, the default memo applies and comes back.
    const absent = locationOf(await pay(`?to=bobby&amount=1&redirect_uri=${encodeURIComponent(SHOP)}`));
    expect(absent.searchParams.get('remarks')).toBe('kudos pay');
  });

  it('refuses paying yourself on confirm, with no error code on the page, and makes no transaction', async () => {
    const recorded = async () =>
      ((await (await fetch(`${kudos.authURL}/_emulator/state`)).json()) as { transactions: unknown[] })
        .transactions.length;
    const before = await recorded();
    const res = await pay('?to=alice&amount=1');
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('You cannot pay yourself.');
    expect(html).not.toMatch(/<code[^>]*>[A-Z_]{6,}<\/code>/);
    await kudos.idle();
    expect(await recorded()).toBe(before);
    expect(() => kudos.pay({ from: 'alice', to: 'alice', amount: '1' })).toThrow('You cannot pay yourself.');
  });

  it('accepts a redirect_uri nobody whitelisted in popup mode (any opener but 0), and only there', async () => {
    const elsewhere = encodeURIComponent('https://blog.example/post/1');
    const browser = await signedIn();
    for (const opener of ['1', 'true', 'yes']) {
      expect(
        (await browser.get(widget(`?to=bobby&amount=1&opener=${opener}&redirect_uri=${elsewhere}`))).status,
      ).toBe(200);
    }
    for (const query of [
      `?to=bobby&amount=1&opener=0&redirect_uri=${elsewhere}`,
      `?to=bobby&amount=1&redirect_uri=${elsewhere}`,
    ]) {
      const res = await browser.get(widget(query));
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('REDIRECT_URI_NOT_WHITELIST');
    }
    const done = await pay(`?to=bobby&amount=1&opener=1&redirect_uri=${elsewhere}&state=s-1`);
    expect(done.status).toBe(200);
    const html = await done.text();
    expect(html).toContain('"https://blog.example"'); // the message's target origin
    expect(html).toContain('TX_SUBMITTED');
  });
});
