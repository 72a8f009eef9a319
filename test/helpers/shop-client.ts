import type { KudosEmulator } from 'kudos-emulator';
import { CookieClient, locationOf } from './cookie-client.js';
import { exchangeCode, PAYMENT_USERS, passAuthorization } from './emulator-user.js';

/** The shop's payment redirect (on whitelists in the payment tests). */
export const SHOP = 'https://shop.example/paid';

/** The OAuth client of the emulator tests that play a shop. */
export const SHOP_CLIENT = {
  clientID: 'shop',
  clientSecret: 'shop-secret',
  name: 'The Shop',
  redirectURIs: ['https://shop.example/cb'],
};

/** The shop's authorization page URL on `kudos`, with `params` (scope, state, ...). */
export function shopAuthorizeURL(kudos: KudosEmulator, params: Record<string, string>): string {
  const query = new URLSearchParams({
    client_id: SHOP_CLIENT.clientID,
    redirect_uri: SHOP_CLIENT.redirectURIs[0] as string,
    ...params,
  });
  return `${kudos.authURL}/in/oauth/?${query}`;
}

/** Exchanges the code of the redirect back to the shop; answers the token response. */
export function shopTokens(kudos: KudosEmulator, back: Response) {
  return exchangeCode(kudos.tokenURL, {
    clientID: SHOP_CLIENT.clientID,
    clientSecret: SHOP_CLIENT.clientSecret,
    code: locationOf(back).searchParams.get('code') ?? '',
    redirectURI: SHOP_CLIENT.redirectURIs[0] as string,
  });
}

/** Signs `username` (a payment user) in at the shop through the pages; answers the token response. */
export async function shopSignIn(
  kudos: KudosEmulator,
  params: Record<string, string>,
  browser = new CookieClient(),
  username = 'alice',
) {
  const password = PAYMENT_USERS.find((u) => u.id === username)?.password;
  return shopTokens(
    kudos,
    await passAuthorization(browser, shopAuthorizeURL(kudos, params), { username, password }),
  );
}
