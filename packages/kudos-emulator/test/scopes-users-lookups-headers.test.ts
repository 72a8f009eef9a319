import type { KudosEmulator, KudosEmulatorOptions } from 'kudos-emulator';
import { describe, expect, it } from 'vitest';
import { readJwtClaims } from '../../../src/index.js';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { EmulatorEach } from '../../../test/helpers/emulator-each.js';
import { formFields, PAYMENT_USERS, passAuthorization } from '../../../test/helpers/emulator-user.js';
import {
  SHOP,
  SHOP_CLIENT,
  shopAuthorizeURL,
  shopSignIn,
  shopTokens,
} from '../../../test/helpers/shop-client.js';

// Scopes, users, the widget's values, transaction lookups and API headers as docs/kudos-service.md
// describes them (its third reading), one test per behaviour, over real HTTP.
const CLIENT = SHOP_CLIENT;

describe('the emulator: scopes, users, widget values, lookups and API headers as observed', () => {
  const each = new EmulatorEach(
    (sink) => ({
      clients: [CLIENT],
      users: PAYMENT_USERS.map((u) =>
        u.id === 'bobby'
          ? { ...u, paymentRedirectURIs: [SHOP] }
          : u.id === 'alice'
            ? { ...u, email: 'alice@kudos.example' }
            : u,
      ),
      agents: [{ id: 'shop-agent', webhookURL: sink?.url, paymentRedirectURIs: [SHOP] }],
      paymentDelayMs: 5,
    }),
    true,
  );
  let kudos: KudosEmulator;
  const start = async (options?: KudosEmulatorOptions) => {
    kudos = await each.start(options);
    return kudos;
  };

  /** The body of the first notification the agent received. */
  function firstBody(): unknown {
    const [hook] = each.sink?.received ?? [];
    if (!hook) throw new Error('no notification received');
    return hook.body;
  }

  const authorizeURL = (params: Record<string, string>) => shopAuthorizeURL(kudos, params);
  const codeFor = (back: Response) => shopTokens(kudos, back);
  const signIn = (params: Record<string, string>, browser?: CookieClient, username?: string) =>
    shopSignIn(kudos, params, browser, username);

  async function loggedIn(username = 'alice'): Promise<CookieClient> {
    const browser = new CookieClient();
    const password = PAYMENT_USERS.find((u) => u.id === username)?.password ?? '';
    await browser.postForm(`${kudos.authURL}/in/login`, { username, password, next: '/in/account' });
    return browser;
  }

  async function widget(params: Record<string, string>, browser?: CookieClient) {
    const client = browser ?? (await loggedIn());
    const page = await client.get(`${kudos.authURL}/in/widget/pay?${new URLSearchParams(params)}`);
    return { client, page, html: await page.text() };
  }

  async function pay(params: Record<string, string>) {
    const { client, page, html } = await widget(params);
    expect(page.status, html).toBe(200);
    return client.postForm(`${kudos.authURL}/in/widget/pay`, {
      ...formFields(html, '/in/widget/pay'),
      decision: 'confirm',
    });
  }

  describe('1, 13, 14: scopes at the authorization page', () => {
    it.each([
      ['read', ['profile', 'read:read', 'write:read']],
      ['kudos.button', ['profile', 'read:kudos.button', 'write:kudos.button']],
      ['kudos', ['profile', 'read:kudos', 'write:kudos']],
      ['email shop.orders', ['profile', 'email', 'read:shop.orders', 'write:shop.orders']],
      ['read:kudos.info', ['profile', 'read:kudos.info']],
    ])(
      'grants "%s" as %j: every word without ":" but profile and email is read:X write:X',
      async (scope, granted) => {
        await start();
        expect(readJwtClaims((await signIn({ scope })).access_token).scope).toEqual(granted);
      },
    );

    it('refuses no scope for being an unknown word; the API judges the token by the grant', async () => {
      await start();
      const tokens = await signIn({ scope: 'nonsense' });
      expect(readJwtClaims(tokens.access_token).scope).toEqual([
        'profile',
        'read:nonsense',
        'write:nonsense',
      ]);
      const info = await fetch(`${kudos.baseURL}/v1/kudos/info`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect([info.status, await info.text()]).toEqual([403, 'INSUFFICIENT_PERMISSION']);
    });

    it('holds a client with a configured scope whitelist to it', async () => {
      await start({ clients: [{ ...CLIENT, scopes: ['profile'] }] });
      const page = await (await loggedIn()).get(authorizeURL({ scope: 'profile email' }));
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('not whitelisted');
    });

    it('skips consent only when the earlier grant covers the request; a wider one asks again', async () => {
      await start();
      const browser = await loggedIn();
      await signIn({ scope: 'profile' }, browser);
      const same = await browser.get(authorizeURL({ scope: 'profile' }));
      expect(same.status).toBe(302); // covered: straight back with a code
      const wider = await browser.get(authorizeURL({ scope: 'kudos' }));
      expect(wider.status).toBe(200); // the consent page again
      expect(await wider.text()).toContain('write:kudos');
      // A token never carries a scope the user did not consent to.
      const code = await codeFor(same);
      expect(readJwtClaims(code.access_token).scope).toEqual(['profile']);
      // Consenting to the wider request covers it from then on, and the narrower one still.
      const accepted = await passAuthorization(browser, authorizeURL({ scope: 'kudos' }));
      expect(readJwtClaims((await codeFor(accepted)).access_token).scope).toEqual([
        'profile',
        'read:kudos',
        'write:kudos',
      ]);
      expect((await browser.get(authorizeURL({ scope: 'read:kudos.info' }))).status).toBe(302);
    });
  });

  describe('2, 12: users', () => {
    it('answers GET /users/profile with wallets, and email only with the email scope', async () => {
      await start();
      for (const [scope, email] of [
        ['profile', undefined],
        ['profile email', 'alice@kudos.example'],
      ] as const) {
        const tokens = await signIn({ scope });
        const profile = await (
          await fetch(`${kudos.baseURL}/users/profile`, {
            headers: { authorization: `Bearer ${tokens.access_token}` },
          })
        ).json();
        expect(Object.keys(profile).sort()).toEqual(
          [
            'avatar',
            'cosmosWallet',
            'kudosWallet',
            'displayName',
            'user',
            'wallet',
            ...(email ? ['email'] : []),
          ].sort(),
        );
        expect(profile.email).toBe(email);
      }
    });

    it('answers the public GET /users/id/{id}/min without a token; ?type=payment adds the whitelist; 404 unknown', async () => {
      await start();
      const min = await fetch(`${kudos.baseURL}/users/id/bobby/min`);
      expect(min.status).toBe(200);
      const profile = await min.json();
      expect(profile).toMatchObject({ user: 'bobby', cosmosWallet: expect.stringMatching(/^cosmos1/) });
      expect(profile).not.toHaveProperty('email');
      expect(profile).not.toHaveProperty('paymentRedirectWhiteList');
      const payment = await (await fetch(`${kudos.baseURL}/users/id/bobby/min?type=payment`)).json();
      expect(payment.paymentRedirectWhiteList).toEqual([SHOP]);
      const agent = await (await fetch(`${kudos.baseURL}/users/id/shop-agent/min?type=payment`)).json();
      expect(agent.paymentRedirectWhiteList).toEqual([SHOP]);
      expect((await fetch(`${kudos.baseURL}/users/id/nobody-here/min`)).status).toBe(404);
    });
  });

  describe('3, 4, 7: widget refusals show the service code', () => {
    it.each([
      [{ to: 'bobby,shop-agent', amount: '1' }, 'RECIPIENT_AND_AMOUNT_SIZE_MISMATCH'],
      [{ to: 'bobby', amount: '1,2' }, 'RECIPIENT_AND_AMOUNT_SIZE_MISMATCH'],
      [{ to: 'bobby,shop-agent', amount: '1,1', redirect_uri: SHOP }, 'CANNOT_REDIRECT_MULTIPLE_RECEIPIENTS'],
      [{ to: 'shop-agent', amount: '1', redirect_uri: SHOP }, 'USER_NOT_SETUP_PAYMENT_REDIRECT'],
      [{ amount: '1' }, 'INVALID_RECIPIENT'],
      [{ to: 'bobby' }, 'INVALID_AMOUNT'],
      [{ to: 'bobby', amount: '1', fee: '1' }, 'MISSING_VIA'],
    ])('%j: %s, no payment, no redirect', async (params, code) => {
      await start();
      const { page, html } = await widget(params as Record<string, string>);
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(html).toContain(`<code id="error-code">${code}</code>`);
      await kudos.idle();
      expect(kudos.deliveries).toHaveLength(0);
    });

    it('lets several recipients with via redirect, on the agent whitelist', async () => {
      await start();
      const back = await pay({
        to: 'bobby,shop-agent',
        amount: '1,2',
        via: 'shop-agent',
        redirect_uri: SHOP,
      });
      expect(locationOf(back).searchParams.get('tx_hash')).toMatch(/^[0-9A-F]{64}$/);
    });
  });

  describe('5: notification metadata', () => {
    it('puts every widget value inside kudosPay, only the non-empty ones, blocking as given', async () => {
      await start();
      await pay({
        to: 'bobby',
        amount: '2',
        via: 'shop-agent',
        fee: '0.5',
        state: 'order-7',
        redirect_uri: SHOP,
        blocking: 'yes',
        remarks: 'thanks',
      });
      await pay({ to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle();
      const [full, bare] = (each.sink?.received ?? []).map((h) => (h.body as { metadata: unknown }).metadata);
      expect(full).toEqual({
        kudosPay: {
          toIds: ['bobby'],
          amounts: ['2'],
          agentId: 'shop-agent',
          agentFee: '0.5',
          redirectUri: SHOP,
          remarks: 'thanks',
          blocking: 'yes',
          state: 'order-7',
        },
      });
      expect(bare).toEqual({
        kudosPay: {
          toIds: ['bobby'],
          amounts: ['1'],
          agentId: 'shop-agent',
          remarks: 'kudos pay via shop-agent',
        },
      });
    });

    it('records a MsgMultiSend with every output in to/toId (the agent fee too) and one summed amount', async () => {
      await start();
      kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0.5' });
      await kudos.idle();
      const { tx } = firstBody() as { tx: Record<string, unknown> };
      expect(tx.toId).toEqual(['bobby', 'shop-agent']);
      expect(tx.to).toHaveLength(2);
      expect(tx.amount).toEqual({ amount: '2500000000', denom: 'nanokudos' });
    });

    it('with multiSendAmounts per-output, gives one coin per output', async () => {
      await start({ multiSendAmounts: 'per-output' });
      kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0.5' });
      await kudos.idle();
      const { tx } = firstBody() as { tx: Record<string, unknown> };
      expect(tx.amount).toEqual([
        { amount: '2000000000', denom: 'nanokudos' },
        { amount: '500000000', denom: 'nanokudos' },
      ]);
    });
  });

  describe('9, 10: transaction lookups', () => {
    it('answers GET /tx/id/{hash} with the record a notification carries, no token; 404 unknown', async () => {
      await start();
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle();
      const res = await fetch(`${kudos.baseURL}/tx/id/${tx.txHash}`);
      expect(res.status).toBe(200);
      const notified = (firstBody() as { tx: unknown }).tx;
      expect(await res.json()).toEqual(notified);
      expect((await fetch(`${kudos.baseURL}/tx/id/${'0'.repeat(64)}`)).status).toBe(404);
    });

    it("answers a user's history to that user's token with read: newest first, at most 10, from ts", async () => {
      await start({ clients: [{ ...CLIENT, defaultScopes: ['profile', 'read'] }] });
      const hashes: string[] = [];
      for (let i = 0; i < 12; i++) {
        hashes.push(kudos.pay({ from: 'alice', to: 'bobby', amount: String(i + 1) }).txHash);
        kudos.advanceClock(1000);
      }
      await kudos.idle();
      const bobby = await signIn({}, new CookieClient(), 'bobby');
      const auth = { authorization: `Bearer ${bobby.access_token}` };
      const first = await (await fetch(`${kudos.baseURL}/tx/history/user/bobby`, { headers: auth })).json();
      expect(first.map((t: { txHash: string }) => t.txHash)).toEqual(hashes.slice(2).reverse());
      const cursor = first.at(-1).ts - 1;
      const next = await (
        await fetch(`${kudos.baseURL}/tx/history/user/bobby?ts=${cursor}&count=50`, { headers: auth })
      ).json();
      expect(next.map((t: { txHash: string }) => t.txHash)).toEqual(hashes.slice(0, 2).reverse());
      const three = await (
        await fetch(`${kudos.baseURL}/tx/history/user/bobby?count=3`, { headers: auth })
      ).json();
      expect(three).toHaveLength(3);
      // Anyone else, or a token without read: 401 LOGIN_NEEDED.
      const other = await fetch(`${kudos.baseURL}/tx/history/user/alice`, { headers: auth });
      expect([other.status, await other.text()]).toEqual([401, 'LOGIN_NEEDED']);
      const noRead = await signIn({ scope: 'profile' }, new CookieClient(), 'bobby');
      const refused = await fetch(`${kudos.baseURL}/tx/history/user/bobby`, {
        headers: { authorization: `Bearer ${noRead.access_token}` },
      });
      expect([refused.status, await refused.text()]).toEqual([401, 'LOGIN_NEEDED']);
      expect((await fetch(`${kudos.baseURL}/tx/history/user/bobby`)).status).toBe(401);
    });

    it('answers the chain lookup as a full GetTxResponse with transfer events and logs', async () => {
      await start();
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '1' });
      await kudos.idle();
      const res = await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${tx.txHash}`);
      expect(res.headers.get('cache-control')).toBe('public, max-age=1');
      const body = await res.json();
      expect(body.tx.body.messages[0]['@type']).toBe('/cosmos.bank.v1beta1.MsgMultiSend');
      expect(body.tx_response.tx['@type']).toBe('/cosmos.tx.v1beta1.Tx');
      expect(body.tx_response.tx.body.messages).toEqual(body.tx.body.messages);
      // The fee step's transfer (to the fee collector) comes first, then the message's.
      const transfers = body.tx_response.events
        .filter((e: { type: string }) => e.type === 'transfer')
        .slice(1);
      // Since the chain's v4 release, tx_response.events carry keys and values in base64.
      const b64 = (text: string) => Buffer.from(text).toString('base64');
      const attr = (e: { attributes: Array<{ key: string; value: string }> }, key: string) => {
        const found = e.attributes.find((a) => a.key === b64(key))?.value;
        return found === undefined ? undefined : Buffer.from(found, 'base64').toString('utf8');
      };
      expect(transfers.map((e: never) => attr(e, 'amount'))).toEqual([
        '2000000000nanokudos',
        '1000000000nanokudos',
      ]);
      expect(attr(transfers[0], 'recipient')).toBe(body.tx.body.messages[0].outputs[0].address);
      expect(transfers[0].attributes[0].key).toBe('cmVjaXBpZW50'); // `recipient`
      // The logs keep them plain.
      const logged = body.tx_response.logs[0].events.find((e: { type: string }) => e.type === 'transfer');
      expect(logged.attributes[0]).toEqual({
        key: 'recipient',
        value: body.tx.body.messages[0].outputs[0].address,
      });
    });

    it('answers the legacy GET /cosmos/lcd/txs/{hash} 501, as the chain no longer serves it', async () => {
      await start();
      const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
      await kudos.idle();
      const res = await fetch(`${kudos.baseURL}/cosmos/lcd/txs/${tx.txHash}`);
      expect(res.status).toBe(501);
      expect(await res.json()).toEqual({ code: 12, message: 'Not Implemented', details: [] });
    });
  });

  describe('11, 15, 16: API headers and bearer tokens', () => {
    it('reflects the Origin with credentials, and answers a preflight with 204', async () => {
      await start();
      const res = await fetch(`${kudos.baseURL}/users/id/bobby/min`, {
        headers: { origin: 'https://app.example' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      const preflight = await fetch(`${kudos.baseURL}/users/profile`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization');
      // The pages are not the API: no CORS there.
      const page = await fetch(`${kudos.authURL}/in/login`, { headers: { origin: 'https://app.example' } });
      expect(page.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('sends the API no-cache headers on answers and errors (the public profile lookups excepted: fourth reading)', async () => {
      await start();
      for (const path of ['/users/profile', `/tx/id/${'0'.repeat(64)}`, '/tx/history/user/bobby']) {
        const res = await fetch(`${kudos.baseURL}${path}`);
        expect(res.headers.get('cache-control'), path).toBe(
          'no-store, no-cache, must-revalidate, proxy-revalidate',
        );
        expect(res.headers.get('pragma')).toBe('no-cache');
        expect(res.headers.get('expires')).toBe('0');
      }
    });

    it('lets an Authorization: Bearer header win over ?access_token=, even an empty or garbage one', async () => {
      await start();
      const tokens = await signIn({ scope: 'profile' });
      const query = `?access_token=${tokens.access_token}`;
      expect((await fetch(`${kudos.baseURL}/users/profile${query}`)).status).toBe(200);
      for (const header of ['Bearer ', 'Bearer garbage', 'Bearer']) {
        const res = await fetch(`${kudos.baseURL}/users/profile${query}`, {
          headers: { authorization: header },
        });
        expect([res.status, await res.text()], header).toEqual([401, 'LOGIN_NEEDED']);
      }
    });
  });
});
