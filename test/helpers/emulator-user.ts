import { expect } from 'vitest';
import { CookieClient, locationOf } from './cookie-client.js';

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** The hidden fields of the form posting to `action` in an HTML page. */
export function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  if (start === -1) throw new Error(`no form posting to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1] as string] = (m[2] as string).replace(
      /&amp;|&lt;|&gt;|&quot;|&#39;/g,
      (e) => ENTITIES[e] ?? e,
    );
  }
  return fields;
}

/** Options of {@link passAuthorization}. */
export interface UserActions {
  username?: string;
  password?: string;
  decision?: 'accept' | 'decline';
}

/**
 * Plays the user on the emulator: from the authorization page URL, logs in when asked, and
 * answers the consent page. Returns the emulator's redirect back to the app (not followed). A user
 * who already authorized the app is sent straight back, as by the service (no consent page).
 */
export async function passAuthorization(
  client: CookieClient,
  authorizeURL: URL | string,
  { username = 'alice', password = 'wonderland', decision = 'accept' }: UserActions = {},
): Promise<Response> {
  const origin = new URL(authorizeURL).origin;
  let page = await client.get(authorizeURL);
  if (page.status === 302 && locationOf(page, origin).pathname === '/in/register') {
    // Signed out: the service's authentication step, back to the page's absolute URL once signed in.
    const back = new URL(locationOf(page, origin).searchParams.get('redirect') ?? '/', origin);
    const next = back.pathname + back.search;
    const loggedIn = await client.postForm(`${origin}/in/login`, { username, password, next });
    expect(loggedIn.status).toBe(302);
    page = await client.get(locationOf(loggedIn, origin));
  }
  if (page.status === 302 && decision === 'accept') return page; // authorized before: no consent page
  expect(page.status).toBe(200);
  const fields = formFields(await page.text(), '/in/oauth/');
  return client.postForm(`${origin}/in/oauth/`, { ...fields, decision });
}

/**
 * Signs in at an app: GET `{appURL}{start}`, plays the user on the emulator, and follows the
 * redirect back to the app's callback once. Returns the browser and the callback's answer.
 */
export async function signInAt(
  appURL: string,
  actions: UserActions = {},
  start = '/auth/kudos',
): Promise<{ browser: CookieClient; callback: Response }> {
  const browser = new CookieClient();
  const back = await passAuthorization(browser, locationOf(await browser.get(`${appURL}${start}`)), actions);
  return { browser, callback: await browser.get(locationOf(back)) };
}

/** A payer, a receiver and an agent account: the users of the payment tests. */
export const PAYMENT_USERS = [
  { id: 'alice', password: 'wonderland' },
  { id: 'bobby', password: 'builder' },
  { id: 'shop-agent', password: 'agent-pass' },
];

/** POSTs a form to a token endpoint, as an app does. */
export function postTokenForm(tokenURL: string, fields: Record<string, string>): Promise<Response> {
  return fetch(tokenURL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}

/** Exchanges an authorization code at an emulator's token endpoint, as an app's callback does; answers the JSON. */
export async function exchangeCode(
  tokenURL: string,
  args: { clientID: string; clientSecret: string; code: string; redirectURI: string },
): Promise<{ access_token: string; refresh_token: string; user: string; avatar: string }> {
  const res = await postTokenForm(tokenURL, {
    client_id: args.clientID,
    client_secret: args.clientSecret,
    grant_type: 'authorization_code',
    code: args.code,
    redirect_uri: args.redirectURI,
  });
  expect(res.status).toBe(200);
  return res.json();
}
