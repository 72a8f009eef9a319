import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { formFields } from '../../../test/helpers/emulator-user.js';

// Signing out of the emulator and back to the app that sent the user (OpenID Connect RP-Initiated
// Logout's `client_id` and `post_logout_redirect_uri`): only to an address of that client's.
const CLIENT = {
  clientID: 'shop',
  clientSecret: 'shop-secret',
  redirectURIs: ['https://shop.example/auth/cb', 'http://localhost:3000/auth/kudos/callback'],
};

describe('the emulator’s sign-out, back to the app', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({ port: 0, clients: [CLIENT] });
  });
  afterAll(() => kudos.close());

  const logoutURL = (back: string, clientID = 'shop') =>
    `${kudos.authURL}/in/logout?${new URLSearchParams({ client_id: clientID, post_logout_redirect_uri: back })}`;

  async function signedIn(): Promise<CookieClient> {
    const browser = new CookieClient();
    await browser.postForm(`${kudos.authURL}/in/login`, { username: 'alice', password: 'wonderland' });
    expect((await browser.get(`${kudos.authURL}/in/account`)).status).toBe(200);
    return browser;
  }

  it('asks once, signs out, and sends the browser to the address (a loopback one on any port)', async () => {
    const browser = await signedIn();
    const back = 'http://localhost:51234/?signed=out';
    const page = await browser.get(logoutURL(back));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<strong id="user">alice</strong>');
    const out = await browser.postForm(`${kudos.authURL}/in/logout`, formFields(html, '/in/logout'));
    expect(out.status).toBe(302);
    expect(locationOf(out).href).toBe(back);
    // Signed out: the account page asks for the password again.
    expect(locationOf(await browser.get(`${kudos.authURL}/in/account`)).pathname).toBe('/in/login');
  });

  it('sends a visitor who is signed out already straight back', async () => {
    const res = await new CookieClient().get(logoutURL('https://shop.example/'));
    expect(res.status).toBe(302);
    expect(locationOf(res).href).toBe('https://shop.example/');
  });

  it.each([
    ['another origin', 'https://evil.example/', 'shop'],
    ['another port of a non-loopback host', 'https://shop.example:8443/', 'shop'],
    ['an unknown client', 'https://shop.example/', 'nobody'],
    ['a value that is no URL', 'not a url', 'shop'],
  ])('refuses %s with a 400 that names the field, and signs nobody out', async (_what, back, clientID) => {
    const browser = await signedIn();
    const res = await browser.get(logoutURL(back, clientID));
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('post_logout_redirect_uri');
    expect(html).toContain('<code id="error-code">invalid_request</code>');
    expect((await browser.get(`${kudos.authURL}/in/account`)).status).toBe(200);
  });

  it('signs out by a form that names a foreign address, and goes to the sign-in page instead', async () => {
    const browser = await signedIn();
    const html = await (await browser.get(logoutURL('https://shop.example/'))).text();
    const fields = { ...formFields(html, '/in/logout'), post_logout_redirect_uri: 'https://evil.example/' };
    const out = await browser.postForm(`${kudos.authURL}/in/logout`, fields);
    expect(locationOf(out).pathname).toBe('/in/login');
    expect(locationOf(await browser.get(`${kudos.authURL}/in/account`)).pathname).toBe('/in/login');
  });

  it('without a return address, signs out to its sign-in page as before', async () => {
    const browser = await signedIn();
    const html = await (await browser.get(`${kudos.authURL}/in/logout`)).text();
    const out = await browser.postForm(`${kudos.authURL}/in/logout`, formFields(html, '/in/logout'));
    expect(locationOf(out).pathname).toBe('/in/login');
  });
});
