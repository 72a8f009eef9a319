import { type KudosEmulator, type KudosEmulatorOptions, startKudosEmulator } from 'kudos-emulator';
import { describe, expect, it } from 'vitest';
import { readJwtClaims } from '../../../src/index.js';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { EmulatorEach } from '../../../test/helpers/emulator-each.js';
import { formFields, PAYMENT_USERS, passAuthorization } from '../../../test/helpers/emulator-user.js';
import { SHOP, SHOP_CLIENT, shopAuthorizeURL, shopSignIn } from '../../../test/helpers/shop-client.js';
import { startWebhookSink } from '../../../test/helpers/webhook-sink.js';

// One test per observation of docs/kudos-service.md that the emulator follows by default, over
// real HTTP, named after the behaviour. README "What it emulates faithfully" lists the same rows.
const CLIENT = SHOP_CLIENT;

describe('the emulator does what the service was observed to do', () => {
  const each = new EmulatorEach(() => ({ clients: [CLIENT], users: PAYMENT_USERS, paymentDelayMs: 5 }));
  let kudos: KudosEmulator;
  const start = async (options?: KudosEmulatorOptions) => {
    kudos = await each.start(options);
    return kudos;
  };

  const authorizeURL = (params: Record<string, string>) => shopAuthorizeURL(kudos, params);
  /** Signs in through the pages and exchanges the code; answers the token response. */
  const signIn = (params: Record<string, string>, browser?: CookieClient) =>
    shopSignIn(kudos, params, browser);

  describe('authorization page', () => {
    it('ignores response_type: missing or another value is no error', async () => {
      await start();
      const variants: Array<Record<string, string>> = [
        { scope: 'profile' },
        { scope: 'profile', response_type: 'token' },
      ];
      for (const params of variants) {
        const tokens = await signIn(params);
        expect(tokens.user).toBe('alice');
      }
    });

    it('grants exactly the client default scopes (profile not added), or profile, when no scope is named', async () => {
      await start({ clients: [{ ...CLIENT, defaultScopes: ['email'] }] });
      expect(readJwtClaims((await signIn({})).access_token).scope).toEqual(['email']);
      await kudos.close();
      await start();
      expect(readJwtClaims((await signIn({})).access_token).scope).toEqual(['profile']);
    });

    it('always adds profile to what it grants', async () => {
      await start();
      expect(readJwtClaims((await signIn({ scope: 'read:kudos.info' })).access_token).scope).toEqual([
        'profile',
        'read:kudos.info',
      ]);
    });

    it('grants a bare area name (kudos) as read:kudos and write:kudos', async () => {
      await start();
      expect(readJwtClaims((await signIn({ scope: 'kudos' })).access_token).scope).toEqual([
        'profile',
        'read:kudos',
        'write:kudos',
      ]);
    });

    it('sends a user who already authorized the client straight back with a code (skipConsentWhenAuthorized)', async () => {
      await start();
      const browser = new CookieClient();
      await signIn({ scope: 'profile' }, browser);
      const again = await browser.get(authorizeURL({ scope: 'profile', state: 'st' }));
      expect(again.status).toBe(302);
      expect(locationOf(again).searchParams.get('state')).toBe('st');
      expect(locationOf(again).searchParams.get('code')).toBeTruthy();
      await kudos.close();
      await start({ skipConsentWhenAuthorized: false });
      const asked = new CookieClient();
      await signIn({ scope: 'profile' }, asked);
      const consent = await asked.get(authorizeURL({ scope: 'profile' }));
      expect(consent.status).toBe(200);
      expect(await consent.text()).toContain('value="accept"');
    });

    it('names the code parameter code, and declines with error=denied and the state', async () => {
      await start();
      const browser = new CookieClient();
      const declined = locationOf(
        await passAuthorization(browser, authorizeURL({ scope: 'profile', state: 'x1' }), {
          decision: 'decline',
        }),
      );
      expect(Object.fromEntries(declined.searchParams)).toEqual({ error: 'denied', state: 'x1' });
      const accepted = locationOf(await passAuthorization(browser, authorizeURL({ scope: 'profile' })));
      expect([...accepted.searchParams.keys()]).toEqual(['code']);
    });
  });

  describe('token endpoint', () => {
    it('reads the client credentials and every field from the query string of a body-less POST', async () => {
      await start();
      const { code } = kudos.authorize({ clientID: 'shop', user: 'alice' });
      const query = new URLSearchParams({
        client_id: 'shop',
        client_secret: 'shop-secret',
        grant_type: 'authorization_code',
        code,
        redirect_uri: CLIENT.redirectURIs[0] as string,
      });
      const res = await fetch(`${kudos.baseURL}/oauth/access_token?${query}`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect((await res.json()).user).toBe('alice');
    });

    it('reads a JSON body', async () => {
      await start();
      const { code } = kudos.authorize({ clientID: 'shop', user: 'alice' });
      const res = await fetch(`${kudos.baseURL}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_id: 'shop',
          client_secret: 'shop-secret',
          grant_type: 'authorization_code',
          code,
          redirect_uri: CLIENT.redirectURIs[0],
        }),
      });
      expect(res.status).toBe(200);
    });

    it('issues access tokens whose aud and iss are the host name, not URLs', async () => {
      await start();
      const tokens = await signIn({ scope: 'profile' });
      const payload = JSON.parse(
        Buffer.from(tokens.access_token.split('.')[1] ?? '', 'base64url').toString(),
      );
      const host = new URL(kudos.authURL).host;
      expect([payload.aud, payload.iss]).toEqual([host, host]);
    });
  });

  describe('authenticated API', () => {
    it('answers API errors as one upper-case word sent as text/html (the token endpoint: text/plain)', async () => {
      await start();
      const noToken = await fetch(`${kudos.baseURL}/users/profile`);
      expect([noToken.status, noToken.headers.get('content-type'), await noToken.text()]).toEqual([
        401,
        'text/html; charset=utf-8',
        'LOGIN_NEEDED',
      ]);
      const tokens = await signIn({ scope: 'profile' });
      const forbidden = await fetch(`${kudos.baseURL}/v1/kudos/info`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect([forbidden.status, forbidden.headers.get('content-type'), await forbidden.text()]).toEqual([
        403,
        'text/html; charset=utf-8',
        'INSUFFICIENT_PERMISSION',
      ]);
      const tokenError = await fetch(kudos.tokenURL, { method: 'POST' });
      expect(tokenError.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    });

    it('takes the access token from an access_token query parameter too', async () => {
      await start();
      const tokens = await signIn({ scope: 'profile' });
      const res = await fetch(`${kudos.baseURL}/users/profile?access_token=${tokens.access_token}`);
      expect(res.status).toBe(200);
      expect((await fetch(`${kudos.baseURL}/users/profile?access_token=nope`)).status).toBe(401);
    });

    it('answers GET /users/profile with the short public profile and wallets; 401 without a token', async () => {
      await start();
      const tokens = await signIn({ scope: 'profile' });
      const res = await fetch(`${kudos.baseURL}/users/profile`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        user: 'alice',
        displayName: 'alice',
        avatar: tokens.avatar,
        // `wallet` is the legacy Ethereum-style address, never a chain address (sixth reading).
        wallet: expect.stringMatching(/^0x[0-9a-f]{40}$/),
        cosmosWallet: expect.stringMatching(/^cosmos1[a-z0-9]{38}$/),
        // The same account in the main-prefix spelling (a later version of the user record).
        kudosWallet: expect.stringMatching(/^kudos1[a-z0-9]{38}$/),
      });
      expect((await fetch(`${kudos.baseURL}/users/profile`)).status).toBe(401);
    });

    it('keeps an access token working until exp after the user revokes the app (revokeEndsAccessTokens: false)', async () => {
      await start();
      const tokens = await signIn({ scope: 'profile' });
      kudos.revokeAsUser('alice', 'shop');
      const headers = { authorization: `Bearer ${tokens.access_token}` };
      expect((await fetch(`${kudos.baseURL}/users/profile`, { headers })).status).toBe(200);
      kudos.advanceClock(3600 * 1000);
      expect(await (await fetch(`${kudos.baseURL}/users/profile`, { headers })).text()).toBe('TOKEN_EXPIRED');
    });

    it('signs avatar URLs with the observed far-future expiry, Expires=2430432000', async () => {
      await start();
      const { avatar } = await signIn({ scope: 'profile' });
      expect(new URL(avatar).searchParams.get('Expires')).toBe('2430432000');
      expect((await fetch(avatar)).status).toBe(200);
    });
  });

  describe('user IDs', () => {
    it.each(['bob', 'a'.repeat(21), 'Alice', 'al ice'])(
      'refuses a configured user ID %j with a clear error',
      async (id) => {
        await expect(startKudosEmulator({ users: [{ id, password: 'pw' }] })).rejects.toThrow(
          /users\[0\]\.id .* must be 5 to 20 characters of a-z, 0-9, "-" and "_"/,
        );
      },
    );

    it('accepts IDs of 5 to 20 characters of a-z, 0-9, - and _', async () => {
      await start({
        users: [
          { id: 'a_b-1', password: 'pw' },
          { id: 'x'.repeat(20), password: 'pw' },
        ],
      });
      expect(kudos.authorize({ clientID: 'shop', user: 'a_b-1' }).code).toBeTruthy();
    });
  });

  describe('payment widget', () => {
    async function widget(params: Record<string, string>) {
      const browser = new CookieClient();
      await browser.postForm(`${kudos.authURL}/in/login`, {
        username: 'alice',
        password: 'wonderland',
        next: '/in/account',
      });
      const page = await browser.get(`${kudos.authURL}/in/widget/pay?${new URLSearchParams(params)}`);
      return { browser, page, html: await page.text() };
    }

    async function pay(params: Record<string, string>) {
      const { browser, page, html } = await widget(params);
      expect(page.status, html).toBe(200);
      return browser.postForm(`${kudos.authURL}/in/widget/pay`, {
        ...formFields(html, '/in/widget/pay'),
        decision: 'confirm',
      });
    }

    async function startShop(options: KudosEmulatorOptions = {}) {
      each.sink = await startWebhookSink();
      await start({
        agents: [{ id: 'shop-agent', webhookURL: each.sink.url, paymentRedirectURIs: [SHOP] }],
        ...options,
      });
    }

    it('with via, shows AGENT_NOT_SETUP_PAYMENT_REDIRECT for an agent without a whitelist, and never redirects', async () => {
      each.sink = await startWebhookSink();
      await start({ agents: [{ id: 'shop-agent', webhookURL: each.sink.url }] });
      const { page, html } = await widget({
        to: 'bobby',
        amount: '1',
        via: 'shop-agent',
        redirect_uri: SHOP,
      });
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(html).toContain('AGENT_NOT_SETUP_PAYMENT_REDIRECT');
    });

    it('with via, shows REDIRECT_URI_NOT_WHITELIST for a redirect_uri not on the agent whitelist (exact match)', async () => {
      await startShop();
      for (const uri of ['https://shop.example/other', `${SHOP}?x=1`, 'https://evil.example/paid']) {
        const { page, html } = await widget({
          to: 'bobby',
          amount: '1',
          via: 'shop-agent',
          redirect_uri: uri,
        });
        expect(page.status).toBe(400);
        expect(html).toContain('REDIRECT_URI_NOT_WHITELIST');
      }
      const ok = await pay({ to: 'bobby', amount: '1', via: 'shop-agent', redirect_uri: SHOP });
      expect(`${locationOf(ok).origin}${locationOf(ok).pathname}`).toBe(SHOP);
    });

    it('without via, applies the receiver whitelist the same way', async () => {
      await start({
        users: PAYMENT_USERS.map((u) => (u.id === 'bobby' ? { ...u, paymentRedirectURIs: [SHOP] } : u)),
      });
      expect((await widget({ to: 'shop-agent', amount: '1', redirect_uri: SHOP })).html).toContain(
        'USER_NOT_SETUP_PAYMENT_REDIRECT',
      );
      expect((await widget({ to: 'bobby', amount: '1', redirect_uri: 'https://x.example/' })).html).toContain(
        'REDIRECT_URI_NOT_WHITELIST',
      );
      expect((await pay({ to: 'bobby', amount: '1', redirect_uri: SHOP })).status).toBe(302);
    });

    it('refuses fee without via with MISSING_VIA', async () => {
      await startShop();
      expect((await widget({ to: 'bobby', amount: '1', fee: '1' })).html).toContain('MISSING_VIA');
    });

    it('defaults remarks to "kudos pay" (plus " via <agent>") and cuts them to 255 characters', async () => {
      await startShop();
      await pay({ to: 'bobby', amount: '1', via: 'shop-agent' });
      await pay({ to: 'bobby', amount: '1', via: 'shop-agent', remarks: 'r'.repeat(300) });
      await kudos.idle();
      const remarks = (each.sink?.received ?? []).map(
        (h) => (h.body as { tx: { remarks: string } }).tx.remarks,
      );
      expect(remarks).toEqual(['kudos pay via shop-agent', 'r'.repeat(255)]);
      const direct = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
      expect(direct.request.remarks).toBe('kudos pay');
    });

    it('counts any non-empty blocking value as set: success comes back', async () => {
      await startShop();
      const back = locationOf(
        await pay({ to: 'bobby', amount: '1', via: 'shop-agent', blocking: 'maybe', redirect_uri: SHOP }),
      );
      expect(back.searchParams.get('success')).toBe('true');
    });

    it('takes several recipients and decimal amounts: one MsgMultiSend, every output listed, one summed amount', async () => {
      await startShop();
      const back = locationOf(
        await pay({
          to: 'bobby,shop-agent',
          amount: '1.5,0.25',
          via: 'shop-agent',
          blocking: 'true',
          redirect_uri: SHOP,
        }),
      );
      await kudos.idle();
      const hash = back.searchParams.get('tx_hash');
      const body = each.sink?.received[0]?.body as {
        tx: Record<string, unknown>;
        metadata: Record<string, unknown>;
      };
      expect(body.tx.toId).toEqual(['bobby', 'shop-agent']);
      expect(body.tx.amount).toEqual({ amount: '1750000000', denom: 'nanokudos' });
      // The main-prefix spelling of each output's account (observed since 2022).
      expect(body.tx.to).toEqual([kudos.walletOf('bobby', 'kudos'), kudos.walletOf('shop-agent', 'kudos')]);
      expect((body.metadata.kudosPay as Record<string, unknown>).blocking).toBe('true'); // as given
      const lookup = await (await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${hash}`)).json();
      const [message] = lookup.tx.body.messages;
      expect(message['@type']).toBe('/cosmos.bank.v1beta1.MsgMultiSend');
      expect(message.outputs.map((o: { coins: Array<{ amount: string }> }) => o.coins[0]?.amount)).toEqual([
        '1500000000',
        '250000000',
      ]);
      expect(message.inputs[0].coins[0].amount).toBe('1750000000');
    });

    it('records a payment with an agent fee above 0 as one MsgMultiSend paying the receiver and the agent', async () => {
      await startShop();
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '1' });
      await kudos.idle();
      const lookup = await (
        await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${tx.txHash}`)
      ).json();
      const [message] = lookup.tx.body.messages;
      expect(message['@type']).toBe('/cosmos.bank.v1beta1.MsgMultiSend');
      expect(message.outputs).toHaveLength(2);
      expect(message.outputs[1].coins[0].amount).toBe('1000000000');
      const plain = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0' });
      await kudos.idle();
      const single = await (
        await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${plain.txHash}`)
      ).json();
      expect(single.tx.body.messages[0]['@type']).toBe('/cosmos.bank.v1beta1.MsgSend');
    });

    it('serves the chain lookup under {baseURL}/cosmos/lcd, not at the old path', async () => {
      await startShop();
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
      await kudos.idle();
      expect((await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${tx.txHash}`)).status).toBe(
        200,
      );
      expect((await fetch(`${kudos.baseURL}/cosmos/tx/v1beta1/txs/${tx.txHash}`)).status).toBe(404);
    });

    it('sends Authorization: Basic when the webhook URL carries user:password@, and never logs it', async () => {
      each.sink = await startWebhookSink();
      const logs: string[] = [];
      const withCredentials = new URL(each.sink.url);
      withCredentials.username = 'shop-agent';
      withCredentials.password = 'basic-secret-0123456789';
      await start({
        agents: [{ id: 'shop-agent', webhookURL: withCredentials.toString() }],
        log: (l) => logs.push(l),
      });
      kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle();
      expect(each.sink.received[0]?.authorization).toBe(
        `Basic ${Buffer.from('shop-agent:basic-secret-0123456789').toString('base64')}`,
      );
      expect(JSON.stringify(kudos.deliveries)).not.toContain('basic-secret');
      expect(logs.join('\n')).not.toContain('basic-secret');
    });
  });
});
