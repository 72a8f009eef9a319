import { type CodeParam, type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { type AppOptions, EXPRESS_FLAVORS, startApp, type TestApp } from '../helpers/express-app.js';

const CLIENT = {
  clientID: 'app',
  clientSecret: 'app-secret',
  name: 'App',
  redirectURIs: ['http://127.0.0.1/callback'],
};

describe.each(EXPRESS_FLAVORS)('KudosStrategy against the emulator under %s (no mocks)', (flavor) => {
  let kudos: KudosEmulator;
  let app: TestApp;
  afterEach(async () => {
    await app.close();
    await kudos.close();
  });

  async function setUp(codeParam: CodeParam, strategy: AppOptions['strategy'] = {}): Promise<void> {
    kudos = await startKudosEmulator({ clients: [CLIENT], codeParam });
    app = await startApp(flavor, {
      strategy: {
        clientID: 'app',
        clientSecret: 'app-secret',
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
        scope: ['profile', 'email'],
        ...strategy,
      },
    });
  }

  it.each(['code', 'auth_code', 'authorization_code'] as const)(
    'signs in when the code comes as "%s"',
    async (codeParam) => {
      await setUp(codeParam);
      const browser = new CookieClient();
      const start = await browser.get(`${app.url}/login`);
      const back = await passAuthorization(browser, locationOf(start));
      const callback = locationOf(back);
      expect(callback.searchParams.has(codeParam)).toBe(true);
      const done = await browser.get(callback);
      expect(locationOf(done).pathname).toBe('/me');
      expect(await (await browser.get(`${app.url}/me`)).json()).toEqual({
        id: 'alice',
        displayName: 'Alice Liddell',
      });
      const [accessToken, refreshToken, params, profile] = app.calls[0]?.args ?? [];
      expect(typeof accessToken).toBe('string');
      expect(refreshToken).toMatch(/^[\w-]{43}$/);
      expect(params).toMatchObject({ user: 'alice', expires_in: 3600 });
      expect(profile).toMatchObject({
        provider: 'kudos',
        id: 'alice',
        photos: [{ value: expect.stringContaining('/avatars/alice.svg?Expires=') }],
      });
      expect(kudos.counters.authorizationCodeGrants).toBe(1);
    },
  );

  it('fails, not errors, when the user declines on the consent page', async () => {
    await setUp('code');
    const browser = new CookieClient();
    const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)), {
      decision: 'decline',
    });
    const done = await browser.get(locationOf(back));
    expect(locationOf(done).pathname).toBe('/failed');
    expect(await (await browser.get(`${app.url}/failed`)).json()).toEqual({
      messages: ['You declined to sign in with Kudos.'],
    });
    expect(kudos.counters.tokenRequests).toBe(0);
  });

  it('reports the emulator’s INVALID_CLIENT_CRED with its code when the secret is wrong', async () => {
    kudos = await startKudosEmulator({ clients: [CLIENT] });
    app = await startApp(flavor, {
      strategy: { clientID: 'app', clientSecret: 'wrong', authURL: kudos.authURL, baseURL: kudos.baseURL },
    });
    const browser = new CookieClient();
    const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)));
    const res = await browser.get(locationOf(back));
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({
      code: 'INVALID_CLIENT_CRED',
      httpStatus: 400,
      name: 'KudosTokenError',
    });
  });

  it.each([
    [['profile', 'email'], true],
    [['profile'], false],
  ])(
    'with fetchProfile and scope %j, verify gets the full profile (emails: %s)',
    async (scope, withEmail) => {
      await setUp('code', { scope, fetchProfile: true });
      const browser = new CookieClient();
      const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)));
      expect(locationOf(await browser.get(locationOf(back))).pathname).toBe('/me');
      const profile = app.calls[0]?.args[3] as Record<string, unknown> & { _json: Record<string, unknown> };
      expect(profile).toMatchObject({ provider: 'kudos', id: 'alice', displayName: 'Alice Liddell' });
      expect(profile._json.cosmosWallet).toMatch(/^cosmos1[a-z0-9]{38}$/);
      // `wallet` is the legacy Ethereum-style address, never the chain's (sixth reading).
      expect(profile._json.wallet).toMatch(/^0x[0-9a-f]{40}$/);
      if (withEmail) expect(profile.emails).toEqual([{ value: 'alice@kudos.example' }]);
      else expect(profile).not.toHaveProperty('emails');
      expect(kudos.counters.apiCalls).toBe(1);
    },
  );
});
