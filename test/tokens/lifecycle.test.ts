import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import nock from 'nock';
import passport from 'passport';
import refreshLib from 'passport-oauth2-refresh';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createKudosClient,
  KudosApiError,
  KudosStrategy,
  type KudosTokenError,
  type KudosTokenSet,
  type KudosTokenStore,
  MemoryTokenStore,
  readJwtClaims,
  toTokenSet,
  validateTokenResponse,
} from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { exchangeCode, passAuthorization } from '../helpers/emulator-user.js';
import { startApp, type TestApp } from '../helpers/express-app.js';
import { rejectionOf } from '../helpers/rejection.js';

const CLIENT = {
  clientID: 'app',
  clientSecret: 'app-secret',
  name: 'App',
  redirectURIs: ['http://127.0.0.1/callback'],
};
const HOUR = 3600 * 1000;

// Both refresh-token modes of the emulator: 'reuse' (the service's observed behaviour) and 'rotate'.
describe.each(['reuse', 'rotate'] as const)(
  'token lifecycle against the emulator, refreshTokens: %s (docs/kudos-service.md#limits)',
  (mode) => {
    let kudos: KudosEmulator;
    let strategy: KudosStrategy;

    function newStrategy(extra: Partial<{ revokeURL: string; refreshURL: string }> = {}): KudosStrategy {
      return new KudosStrategy(
        {
          clientID: 'app',
          clientSecret: 'app-secret',
          callbackURL: 'http://127.0.0.1/callback',
          authURL: kudos.authURL,
          baseURL: kudos.baseURL,
          scope: ['profile', 'read:kudos.info'],
          ...extra,
        },
        (_a, _r, _p, done) => done(null, {}),
      );
    }

    /** A device signing in: an authorization code exchanged at the token endpoint. */
    async function signIn(user = 'alice', scope = 'profile read:kudos.info'): Promise<KudosTokenSet> {
      const { code } = kudos.authorize({ clientID: 'app', user, scope });
      const tokens = await exchangeCode(kudos.tokenURL, {
        clientID: 'app',
        clientSecret: 'app-secret',
        code,
        redirectURI: 'http://127.0.0.1/callback',
      });
      return toTokenSet(validateTokenResponse(tokens));
    }

    beforeEach(async () => {
      kudos = await startKudosEmulator({ clients: [CLIENT], refreshTokens: mode });
      strategy = newStrategy();
    });
    afterEach(() => kudos.close());

    describe('KudosTokenSet', () => {
      it('takes expiresAt and scope from the JWT claims', async () => {
        const set = await signIn();
        const claims = readJwtClaims(set.accessToken);
        expect(set.expiresAt).toBe((claims.exp as number) * 1000);
        expect(set.expiresAt - kudos.now()).toBeGreaterThan(HOUR - 5000);
        expect(set.expiresAt - kudos.now()).toBeLessThanOrEqual(HOUR);
        expect(set.scope).toEqual(['profile', 'read:kudos.info']);
        expect(set).toMatchObject({ user: 'alice', refreshToken: expect.stringMatching(/^[\w-]{43}$/) });
      });

      it('falls back to issue time + 1 hour and the requested scope for an opaque token', () => {
        const set = toTokenSet({ user: 'u', access_token: 'opaque-token' }, 'profile email', 1_000_000);
        expect(set).toEqual({
          accessToken: 'opaque-token',
          refreshToken: undefined,
          user: 'u',
          expiresAt: 1_000_000 + HOUR,
          scope: ['profile', 'email'],
        });
        expect(
          toTokenSet({ user: 'u', access_token: 'x.!!!.y', expires_in: 60 }, undefined, 0),
        ).toMatchObject({
          expiresAt: 60_000,
          scope: undefined,
        });
      });

      it('is handed to the verify function as params.tokenSet', async () => {
        const app: TestApp = await startApp('express5', {
          strategy: {
            clientID: 'app',
            clientSecret: 'app-secret',
            authURL: kudos.authURL,
            baseURL: kudos.baseURL,
          },
        });
        try {
          const browser = new CookieClient();
          const back = await passAuthorization(browser, locationOf(await browser.get(`${app.url}/login`)));
          await browser.get(locationOf(back));
          const params = app.calls[0]?.args[2] as { tokenSet: KudosTokenSet; access_token: string };
          expect(params.tokenSet).toMatchObject({
            accessToken: params.access_token,
            user: 'alice',
            scope: ['profile'],
          });
          expect(Object.keys(params)).not.toContain('tokenSet');
        } finally {
          await app.close();
        }
      });
    });

    describe('strategy.refresh()', () => {
      it('refreshes at the token endpoint; a rotated refresh token ends the old one (rule a), a reused one keeps working', async () => {
        const first = await signIn();
        const next = await strategy.refresh(first.refreshToken as string);
        expect(next.accessToken).not.toBe(first.accessToken);
        expect(kudos.counters.refreshGrants).toBe(1);
        if (mode === 'reuse') {
          expect(next.refreshToken).toBe(first.refreshToken);
          expect((await strategy.refresh(first.refreshToken as string)).user).toBe('alice');
          return;
        }
        expect(next.refreshToken).not.toBe(first.refreshToken);
        const dead = await rejectionOf(strategy.refresh(first.refreshToken as string));
        expect(dead).toMatchObject({ code: 'reauth_required', status: 401, httpStatus: 400 });
        expect(dead.message).toBe('Kudos refused the refresh token: the user must sign in again');
        expect(dead.cause as KudosTokenError).toMatchObject({
          code: 'invalid_grant',
          serviceCode: 'INVALID_GRANT',
        });
      });

      it('rule (a) with two devices: signing in on the second kills the first device’s refresh token', async () => {
        const phone = await signIn();
        const laptop = await signIn();
        expect((await rejectionOf(strategy.refresh(phone.refreshToken as string))).code).toBe(
          'reauth_required',
        );
        expect((await strategy.refresh(laptop.refreshToken as string)).user).toBe('alice');
      });

      it('rule (b): after the user revokes the app, refresh answers reauth_required', async () => {
        const set = await signIn();
        kudos.revokeAsUser('alice', 'app');
        expect((await rejectionOf(strategy.refresh(set.refreshToken as string))).code).toBe(
          'reauth_required',
        );
      });

      it('rule (c): strategy.revoke() at revokeURL ends the refresh token', async () => {
        const withRevoke = newStrategy({ revokeURL: kudos.revokeURL });
        const set = await signIn();
        await withRevoke.revoke(set.refreshToken as string, 'refresh_token');
        expect((await rejectionOf(withRevoke.refresh(set.refreshToken as string))).code).toBe(
          'reauth_required',
        );
        expect(kudos.counters.revocations).toBe(1);
      });

      it('revoke() without a revokeURL throws an error that says so', async () => {
        await expect(strategy.revoke('anything')).rejects.toMatchObject({
          name: 'KudosError',
          code: 'revoke_url_missing',
          message: expect.stringContaining('no "revokeURL" option'),
        });
      });

      it('reports wrong client credentials as the service’s code, not as reauth_required', async () => {
        const set = await signIn();
        const wrong = new KudosStrategy(
          {
            clientID: 'app',
            clientSecret: 'nope',
            callbackURL: '/cb',
            authURL: kudos.authURL,
            baseURL: kudos.baseURL,
          },
          (_a, _r, _p, done) => done(null, {}),
        );
        expect(await rejectionOf(wrong.refresh(set.refreshToken as string))).toMatchObject({
          code: 'INVALID_CLIENT_CRED',
          status: 502,
        });
      });

      it('keeps the old refresh token when the answer has no new one, and honours refreshURL', async () => {
        nock('https://refresh.kudos.test')
          .post('/token')
          .reply(200, { user: 'alice', access_token: 'new-at' });
        try {
          const custom = newStrategy({ refreshURL: 'https://refresh.kudos.test/token' });
          expect(await custom.refresh('old-rt')).toMatchObject({
            accessToken: 'new-at',
            refreshToken: 'old-rt',
          });
        } finally {
          nock.cleanAll();
        }
      });

      it('times out with code timeout like the login exchange', async () => {
        nock('https://refresh.kudos.test').post('/token').delay(2000).reply(200, {});
        try {
          const slow = new KudosStrategy(
            {
              clientID: 'app',
              clientSecret: 's',
              callbackURL: '/cb',
              authURL: 'https://a.test',
              baseURL: 'https://b.test',
              refreshURL: 'https://refresh.kudos.test/token',
              timeoutMs: 100,
            },
            (_a, _r, _p, done) => done(null, {}),
          );
          expect(await rejectionOf(slow.refresh('rt'))).toMatchObject({ code: 'timeout', status: 504 });
        } finally {
          nock.cleanAll();
          nock.abortPendingRequests();
        }
      });

      it('works with passport-oauth2-refresh', async () => {
        const set = await signIn();
        const authenticator = new passport.Passport();
        authenticator.use(strategy);
        refreshLib.use(strategy);
        const result = await new Promise<{ at: string | undefined; rt: string | undefined }>(
          (resolve, reject) =>
            refreshLib.requestNewAccessToken('kudos', set.refreshToken as string, (err, at, rt) =>
              err ? reject(err) : resolve({ at, rt }),
            ),
        );
        expect(readJwtClaims(result.at ?? '').scope).toEqual(['profile', 'read:kudos.info']);
        if (mode === 'rotate') expect(result.rt).not.toBe(set.refreshToken);
        else expect(result.rt).toBe(set.refreshToken);
        expect(kudos.counters.refreshGrants).toBe(1);
      });
    });

    describe('createKudosClient', () => {
      function client(store: KudosTokenStore, now = () => kudos.now()) {
        return createKudosClient({ strategy, tokens: store, baseURL: kudos.baseURL, now });
      }

      it('adds the bearer token and returns the answer', async () => {
        const store = new MemoryTokenStore();
        await store.set('alice', await signIn());
        expect(await client(store).json('alice', '/v1/me')).toMatchObject({
          user: 'alice',
          displayName: 'Alice Liddell',
        });
        expect(kudos.counters.refreshGrants).toBe(0);
      });

      it('checks the answer with a guard when given one: a refused shape is invalid_response (502)', async () => {
        const store = new MemoryTokenStore();
        await store.set('alice', await signIn());
        const api = client(store);
        const isMe = (v: unknown): v is { user: string } =>
          typeof v === 'object' && v !== null && typeof (v as { user?: unknown }).user === 'string';
        const me = await api.json('alice', '/v1/me', isMe);
        expect(me.user).toBe('alice'); // typed by the guard, no cast
        const isList = (v: unknown): v is unknown[] => Array.isArray(v);
        await expect(api.json('alice', '/v1/me', isList)).rejects.toMatchObject({
          code: 'invalid_response',
          status: 502,
          message: expect.stringContaining('GET /v1/me'),
        });
        // The guard and a request init together: the init is still used.
        await expect(api.json('alice', '/v1/me', isMe, { method: 'GET' })).resolves.toMatchObject({
          user: 'alice',
        });
      });

      it('100 concurrent calls with an expired token cause exactly one refresh request', async () => {
        const store = new MemoryTokenStore();
        const old = await signIn();
        await store.set('alice', old);
        kudos.advanceClock(HOUR + 1000);
        const api = client(store);
        const answers = await Promise.all(Array.from({ length: 100 }, () => api.json('alice', '/v1/me')));
        expect(answers.every((a) => (a as { user: string }).user === 'alice')).toBe(true);
        expect(kudos.counters.refreshGrants).toBe(1);
        const stored = await store.get('alice');
        if (mode === 'rotate') expect(stored?.refreshToken).not.toBe(old.refreshToken);
        else expect(stored?.refreshToken).toBe(old.refreshToken);
        expect(stored?.expiresAt).toBeGreaterThan(kudos.now() + HOUR - 5000);
      });

      it('refreshes before expiry, by its own clock', async () => {
        const store = new MemoryTokenStore();
        const set = await signIn();
        await store.set('alice', set);
        const api = client(store, () => set.expiresAt - 30_000); // 30 s left: inside the 60 s margin
        await api.fetch('alice', '/v1/me');
        expect(kudos.counters.refreshGrants).toBe(1);
      });

      it('uses its options as they were when it was made (its calls load later)', async () => {
        const store = new MemoryTokenStore();
        const set = await signIn();
        await store.set('alice', set);
        const options = { strategy, tokens: store, baseURL: kudos.baseURL, now: () => kudos.now() };
        const api = createKudosClient(options);
        options.now = () => set.expiresAt - 30_000; // would make the token due for a refresh
        await api.fetch('alice', '/v1/me');
        expect(kudos.counters.refreshGrants).toBe(0);
      });

      it('refreshes and retries once after a 401 TOKEN_EXPIRED (expiry after one hour of emulator clock)', async () => {
        const store = new MemoryTokenStore();
        await store.set('alice', await signIn());
        kudos.advanceClock(HOUR);
        const api = client(store, Date.now); // its own clock still thinks the token is valid
        const res = await api.fetch('alice', '/v1/me');
        expect(res.status).toBe(200);
        expect(kudos.counters.refreshGrants).toBe(1);
        expect(kudos.counters.apiCalls).toBe(2);
      });

      it('persists every new token set before using it', async () => {
        const events: string[] = [];
        const inner = new MemoryTokenStore();
        const store: KudosTokenStore = {
          get: (id) => inner.get(id),
          set: async (id, set) => {
            events.push(`stored ${set.accessToken.slice(-8)}`);
            await inner.set(id, set);
          },
        };
        await inner.set('alice', await signIn());
        kudos.advanceClock(HOUR + 1000);
        const api = createKudosClient({
          strategy: {
            refresh: async (rt) => {
              const next = await strategy.refresh(rt);
              events.push('refreshed');
              return next;
            },
          },
          tokens: store,
          baseURL: kudos.baseURL,
          now: () => kudos.now(),
        });
        await api.fetch('alice', '/v1/me', {
          headers: { 'x-trace': 'on' },
        });
        const stored = (await inner.get('alice')) as KudosTokenSet;
        expect(events).toEqual(['refreshed', `stored ${stored.accessToken.slice(-8)}`]);
      });

      it('answers a missing scope with KudosApiError 403 INSUFFICIENT_PERMISSION', async () => {
        const store = new MemoryTokenStore();
        await store.set('alice', await signIn('alice', 'profile'));
        const error = await client(store)
          .fetch('alice', '/v1/kudos/info')
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(KudosApiError);
        expect(error).toMatchObject({
          code: 'INSUFFICIENT_PERMISSION',
          status: 403,
          httpStatus: 403,
          message: 'Kudos API answered HTTP 403 INSUFFICIENT_PERMISSION for GET /v1/kudos/info',
        });
      });

      it('after the user revokes the app: the access token works until it expires (observed), then reauth_required', async () => {
        const store = new MemoryTokenStore();
        await store.set('alice', await signIn());
        kudos.revokeAsUser('alice', 'app');
        const api = client(store);
        expect((await api.fetch('alice', '/v1/me')).status).toBe(200);
        kudos.advanceClock(HOUR + 1000);
        await expect(api.fetch('alice', '/v1/me')).rejects.toMatchObject({
          code: 'reauth_required',
          status: 401,
        });
      });

      it('rule (a) across two devices’ stores: the first device must sign in again', async () => {
        const phone = new MemoryTokenStore();
        const laptop = new MemoryTokenStore();
        await phone.set('alice', await signIn());
        await laptop.set('alice', await signIn());
        kudos.advanceClock(HOUR + 1000);
        await expect(client(phone).fetch('alice', '/v1/me')).rejects.toMatchObject({
          code: 'reauth_required',
        });
        expect((await client(laptop).fetch('alice', '/v1/me')).status).toBe(200);
      });

      it('needs stored tokens, a relative path and valid options', async () => {
        const api = client(new MemoryTokenStore());
        await expect(api.fetch('nobody', '/v1/me')).rejects.toMatchObject({ code: 'reauth_required' });
        const store = new MemoryTokenStore();
        await store.set('alice', await signIn());
        await expect(client(store).fetch('alice', 'https://evil.example/steal')).rejects.toThrow(TypeError);
        expect(() => createKudosClient({ strategy, tokens: store, baseURL: 'nope' })).toThrow('"baseURL"');
        expect(() =>
          createKudosClient({ strategy: {} as never, tokens: store, baseURL: kudos.baseURL }),
        ).toThrow('"strategy"');
      });
    });
  },
);
