import { createHmac } from 'node:crypto';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { formFields } from '../../../test/helpers/emulator-user.js';

const JWT_SECRET = 'emulator-test-key';
const CLIENT = {
  clientID: 'shop',
  clientSecret: 'shop-secret',
  name: 'The Shop',
  redirectURIs: ['https://shop.example/cb'],
};
const OTHER = { clientID: 'other', clientSecret: 'other-secret', redirectURIs: ['https://other.example/cb'] };
const HOUR_MS = 3600 * 1000;

type Tokens = {
  user: string;
  displayName: string;
  avatar: string;
  refresh_token: string;
  access_token: string;
};

describe('emulator token endpoint, tokens and API (docs/kudos-service.md: token exchange, API, limits)', () => {
  let kudos: KudosEmulator;

  async function post(
    path: string,
    form: Record<string, string>,
    contentType = 'application/x-www-form-urlencoded',
  ) {
    const res = await fetch(`${kudos.baseURL}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: contentType.includes('json') ? JSON.stringify(form) : new URLSearchParams(form).toString(),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  }

  function exchange(code: string, extra: Record<string, string> = {}) {
    return post('/oauth/access_token', {
      client_id: 'shop',
      client_secret: 'shop-secret',
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://shop.example/cb',
      ...extra,
    });
  }

  async function login(user = 'alice', scope = 'profile email'): Promise<Tokens> {
    const { code } = kudos.authorize({ clientID: 'shop', user, scope });
    const res = await exchange(code);
    expect(res.status).toBe(200);
    return JSON.parse(res.text) as Tokens;
  }

  function refresh(refreshToken: string, client: { clientID: string; clientSecret: string } = CLIENT) {
    return post('/oauth/access_token', {
      client_id: client.clientID,
      client_secret: client.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
  }

  async function api(path: string, accessToken?: string) {
    const res = await fetch(`${kudos.baseURL}${path}`, {
      headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
    });
    return { status: res.status, text: await res.text() };
  }

  beforeEach(async () => {
    kudos = await startKudosEmulator({ clients: [CLIENT, OTHER], jwtSecret: JWT_SECRET });
  });
  afterEach(() => kudos.close());

  it('answers exactly the five fields of docs/kudos-service.md#token-response', async () => {
    const tokens = await login();
    expect(Object.keys(tokens).sort()).toEqual([
      'access_token',
      'avatar',
      'displayName',
      'refresh_token',
      'user',
    ]);
    expect(tokens.user).toBe('alice');
    expect(tokens.displayName).toBe('Alice Liddell');
    expect(tokens.refresh_token).toMatch(/^[\w-]{43}$/);
  });

  it('issues an HS256 JWT access token with the observed claims, valid one hour', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { access_token: token } = await login('alice', 'profile read:kudos');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(signature).toBe(
      createHmac('sha256', JWT_SECRET).update(`${header}.${payload}`).digest('base64url'),
    );
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(Object.keys(claims).sort()).toEqual(['aud', 'azp', 'exp', 'iat', 'iss', 'jti', 'scope', 'user']);
    expect(claims).toMatchObject({ user: 'alice', scope: ['profile', 'read:kudos'], azp: 'shop' });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
  });

  it('answers the observed plain-text errors for client credentials and bodies', async () => {
    const { code } = kudos.authorize({ clientID: 'shop', user: 'alice' });
    expect(await exchange(code, { client_secret: '' })).toEqual({
      status: 400,
      type: 'text/plain; charset=utf-8',
      text: 'MISSING_CLIENT_INFO',
    });
    expect((await exchange(code, { client_id: '' })).text).toBe('MISSING_CLIENT_INFO');
    expect((await exchange(code, { client_secret: 'wrong' })).text).toBe('INVALID_CLIENT_CRED');
    expect((await exchange(code, { client_id: 'ghost' })).text).toBe('INVALID_CLIENT_CRED');
    const json = await post('/oauth/access_token', { client_id: 'shop' }, 'application/json');
    expect([json.status, json.text]).toEqual([400, 'MISSING_CLIENT_INFO']); // JSON bodies are read (observed)
    const broken = await fetch(`${kudos.baseURL}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"client_id":',
    });
    expect([broken.status, await broken.text()]).toEqual([400, 'BODY_PARSE_FAILED']);
    const xml = await fetch(`${kudos.baseURL}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<client_id>shop</client_id>',
    });
    expect([xml.status, await xml.text()]).toEqual([400, 'BODY_PARSE_FAILED']);
    const huge = await post('/oauth/access_token', { pad: 'x'.repeat(70 * 1024) });
    expect([huge.status, huge.text]).toEqual([400, 'BODY_PARSE_FAILED']);
  });

  it('uses each code once, for its own client and redirect_uri, within its lifetime', async () => {
    const first = kudos.authorize({ clientID: 'shop', user: 'alice' });
    expect((await exchange(first.code, { redirect_uri: 'https://shop.example/other' })).text).toBe(
      'INVALID_GRANT',
    );
    const second = kudos.authorize({ clientID: 'shop', user: 'alice' });
    const wrongClient = await post('/oauth/access_token', {
      client_id: 'other',
      client_secret: 'other-secret',
      grant_type: 'authorization_code',
      code: second.code,
      redirect_uri: 'https://shop.example/cb',
    });
    expect(wrongClient.text).toBe('INVALID_GRANT');
    const third = kudos.authorize({ clientID: 'shop', user: 'alice' });
    kudos.advanceClock(61_000);
    expect((await exchange(third.code)).text).toBe('INVALID_GRANT');
    expect((await exchange('never-issued')).text).toBe('INVALID_GRANT');
    expect((await exchange(first.code, { grant_type: 'password' })).text).toBe('UNSUPPORTED_GRANT_TYPE');
  });

  it('refuses a replayed code and ends the refresh token it issued (RFC 6749 section 4.1.2)', async () => {
    const { code } = kudos.authorize({ clientID: 'shop', user: 'alice' });
    const tokens = JSON.parse((await exchange(code)).text) as Tokens;
    expect((await exchange(code)).text).toBe('INVALID_GRANT');
    expect((await refresh(tokens.refresh_token)).text).toBe('INVALID_GRANT');
    // Access tokens are checked by signature and exp only (observed): it works until it expires.
    expect((await api('/v1/me', tokens.access_token)).status).toBe(200);
  });

  it('refreshes with grant_type=refresh_token on the same endpoint, answering the same refresh token (observed: reuse)', async () => {
    const tokens = await login();
    const res = await refresh(tokens.refresh_token);
    expect(res.status).toBe(200);
    const next = JSON.parse(res.text) as Tokens;
    expect(Object.keys(next).sort()).toEqual([
      'access_token',
      'avatar',
      'displayName',
      'refresh_token',
      'user',
    ]);
    expect(next.refresh_token).toBe(tokens.refresh_token);
    expect(next.access_token).not.toBe(tokens.access_token);
    expect((await api('/v1/me', next.access_token)).status).toBe(200);
    expect(kudos.counters.refreshGrants).toBe(1);
  });

  it('keeps the sign-in refresh token working for repeated refreshes (observed: reuse)', async () => {
    const tokens = await login();
    for (let i = 0; i < 3; i++) expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('refreshTokens: "rotate" answers a new refresh token each time, and rule (a) ends the previous one', async () => {
    await kudos.close();
    kudos = await startKudosEmulator({
      clients: [CLIENT, OTHER],
      jwtSecret: JWT_SECRET,
      refreshTokens: 'rotate',
    });
    const tokens = await login();
    const next = JSON.parse((await refresh(tokens.refresh_token)).text) as Tokens;
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(await refresh(tokens.refresh_token)).toMatchObject({ status: 400, text: 'INVALID_GRANT' });
    expect((await refresh(next.refresh_token)).status).toBe(200);
  });

  it('rule (a): a login on a second device ends the first device’s refresh token, for the same client only', async () => {
    const phone = await login();
    const other = JSON.parse(
      (
        await post('/oauth/access_token', {
          client_id: 'other',
          client_secret: 'other-secret',
          grant_type: 'authorization_code',
          code: kudos.authorize({ clientID: 'other', user: 'alice' }).code,
          redirect_uri: 'https://other.example/cb',
        })
      ).text,
    ) as Tokens;
    const laptop = await login();
    expect((await refresh(phone.refresh_token)).text).toBe('INVALID_GRANT');
    expect((await refresh(laptop.refresh_token)).status).toBe(200);
    expect((await refresh(other.refresh_token, OTHER)).status).toBe(200);
    const bob = await login('bobby');
    expect((await refresh(bob.refresh_token)).status).toBe(200);
  });

  it('rule (b): revoking the app on the account page ends its refresh token; its access token works until exp (observed)', async () => {
    const tokens = await login();
    const browser = new CookieClient();
    await browser.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/in/account',
    });
    const page = await (await browser.get(`${kudos.authURL}/in/account`)).text();
    expect(page).toContain('<td>The Shop</td>');
    const revoked = await browser.postForm(
      `${kudos.authURL}/in/account/revoke`,
      formFields(page, '/in/account/revoke'),
    );
    expect(locationOf(revoked).pathname).toBe('/in/account');
    expect(await (await browser.get(`${kudos.authURL}/in/account`)).text()).toContain('No authorized apps.');
    expect((await refresh(tokens.refresh_token)).text).toBe('INVALID_GRANT');
    expect((await api('/v1/me', tokens.access_token)).status).toBe(200);
  });

  it('revokeEndsAccessTokens: true ends the access tokens too, on the account page and through the API', async () => {
    await kudos.close();
    kudos = await startKudosEmulator({
      clients: [CLIENT, OTHER],
      jwtSecret: JWT_SECRET,
      revokeEndsAccessTokens: true,
    });
    const byUser = await login();
    kudos.revokeAsUser('alice', 'shop');
    expect(await api('/v1/me', byUser.access_token)).toEqual({ status: 401, text: 'LOGIN_NEEDED' });
    const byClient = await login();
    await post('/oauth/revoke', {
      client_id: 'shop',
      client_secret: 'shop-secret',
      token: byClient.access_token,
    });
    expect(await api('/v1/me', byClient.access_token)).toEqual({ status: 401, text: 'LOGIN_NEEDED' });
    expect((await refresh(byClient.refresh_token)).status).toBe(200); // an access token ends alone
  });

  it('rule (b) through the test helper', async () => {
    const tokens = await login();
    expect(kudos.revokeAsUser('alice', 'shop')).toBe(true);
    expect((await refresh(tokens.refresh_token)).text).toBe('INVALID_GRANT');
  });

  it('rule (c): the client revokes a refresh token through the API (RFC 7009)', async () => {
    const tokens = await login();
    const res = await post('/oauth/revoke', {
      client_id: 'shop',
      client_secret: 'shop-secret',
      token: tokens.refresh_token,
    });
    expect(res.status).toBe(200);
    expect((await refresh(tokens.refresh_token)).text).toBe('INVALID_GRANT');
    expect((await api('/v1/me', tokens.access_token)).status).toBe(200); // until exp (observed)
  });

  it('rule (c): revoking an access token changes nothing by default; another client cannot revoke; unknown tokens answer 200', async () => {
    const tokens = await login();
    const byOther = await post('/oauth/revoke', {
      client_id: 'other',
      client_secret: 'other-secret',
      token: tokens.refresh_token,
    });
    expect(byOther.status).toBe(200);
    expect((await api('/v1/me', tokens.access_token)).status).toBe(200);
    await post('/oauth/revoke', {
      client_id: 'shop',
      client_secret: 'shop-secret',
      token: tokens.access_token,
    });
    expect((await api('/v1/me', tokens.access_token)).status).toBe(200);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
    expect(
      (await post('/oauth/revoke', { client_id: 'shop', client_secret: 'shop-secret', token: 'x' })).status,
    ).toBe(200);
    expect((await post('/oauth/revoke', { client_id: 'shop', client_secret: 'bad', token: 'x' })).text).toBe(
      'INVALID_CLIENT_CRED',
    );
    expect((await post('/oauth/revoke', { client_id: 'shop', client_secret: 'shop-secret' })).text).toBe(
      'MISSING_TOKEN',
    );
  });

  it('expires access tokens after one hour of emulator clock, with TOKEN_EXPIRED', async () => {
    const tokens = await login();
    kudos.advanceClock(HOUR_MS - 2000);
    expect((await api('/v1/me', tokens.access_token)).status).toBe(200);
    kudos.advanceClock(2000);
    expect(await api('/v1/me', tokens.access_token)).toEqual({ status: 401, text: 'TOKEN_EXPIRED' });
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('answers LOGIN_NEEDED for no, malformed, forged or foreign-key bearer tokens', async () => {
    const tokens = await login();
    const [h, p] = tokens.access_token.split('.');
    for (const bad of [undefined, 'garbage', `${h}.${p}.forged`, `${h}.${p}`]) {
      expect(await api('/v1/me', bad)).toEqual({ status: 401, text: 'LOGIN_NEEDED' });
    }
    const other = await startKudosEmulator({ clients: [CLIENT] });
    const foreign = JSON.parse(
      await fetch(`${other.baseURL}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: 'shop',
          client_secret: 'shop-secret',
          grant_type: 'authorization_code',
          code: other.authorize({ user: 'alice' }).code,
          redirect_uri: 'https://shop.example/cb',
        }),
      }).then((r) => r.text()),
    ) as Tokens;
    await other.close();
    expect((await api('/v1/me', foreign.access_token)).text).toBe('LOGIN_NEEDED');
  });

  it('serves the profile operation with email only when "email" was granted', async () => {
    const withEmail = await login('alice', 'profile email');
    expect(JSON.parse((await api('/v1/me', withEmail.access_token)).text)).toEqual({
      user: 'alice',
      displayName: 'Alice Liddell',
      email: 'alice@kudos.example',
      scope: ['profile', 'email'],
    });
    const withoutEmail = await login('alice', 'profile');
    expect(JSON.parse((await api('/v1/me', withoutEmail.access_token)).text)).not.toHaveProperty('email');
  });

  it('answers 403 INSUFFICIENT_PERMISSION without the scope, following the hierarchy', async () => {
    const profileOnly = await login('alice', 'profile');
    expect(await api('/v1/kudos/info', profileOnly.access_token)).toEqual({
      status: 403,
      text: 'INSUFFICIENT_PERMISSION',
    });
    const writeButton = await login('alice', 'write:kudos.button');
    expect(await api('/v1/kudos/info', writeButton.access_token)).toEqual({
      status: 403,
      text: 'INSUFFICIENT_PERMISSION',
    });
    for (const scope of ['read:kudos.info', 'read:kudos', 'kudos', 'kudos.info']) {
      const tokens = await login('alice', scope);
      const res = await api('/v1/kudos/info', tokens.access_token);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toMatchObject({ user: 'alice' });
    }
    // A requested bare `read` is granted as `read:read write:read` (the page's rule): not read:kudos.info.
    const read = await login('alice', 'read');
    expect((await api('/v1/kudos/info', read.access_token)).status).toBe(403);
    const writeOnly = await login('alice', 'write:kudos');
    expect((await api('/v1/kudos/info', writeOnly.access_token)).status).toBe(403);
  });

  it('signs avatar URLs with the observed far-future expiry by default (Expires=2430432000)', async () => {
    const { avatar } = await login();
    expect(new URL(avatar).searchParams.get('Expires')).toBe('2430432000');
    kudos.advanceClock(30 * 24 * HOUR_MS);
    expect((await fetch(avatar)).status).toBe(200);
  });

  it('serves the avatar as an image until its signed URL expires (avatarLifetimeMs); tampering is refused', async () => {
    await kudos.close();
    kudos = await startKudosEmulator({
      clients: [CLIENT, OTHER],
      jwtSecret: JWT_SECRET,
      avatarLifetimeMs: 3_600_000,
    });
    const { avatar } = await login();
    const url = new URL(avatar);
    expect(url.pathname).toBe('/avatars/alice.svg');
    const expires = Number(url.searchParams.get('Expires'));
    expect(expires).toBeGreaterThan(Date.now() / 1000);
    expect(expires).toBeLessThan(Date.now() / 1000 + 3601);
    const ok = await fetch(avatar);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/svg+xml');
    expect(await ok.text()).toMatch(/^<svg /);
    const tampered = new URL(avatar);
    tampered.searchParams.set('Expires', String(expires + 100));
    expect((await fetch(tampered)).status).toBe(403);
    const otherUser = avatar.replace('/alice.svg', '/bobby.svg');
    expect((await fetch(otherUser)).status).toBe(403);
    kudos.advanceClock(HOUR_MS + 1000);
    expect((await fetch(avatar)).status).toBe(403);
  });

  it('counts what reached it', async () => {
    const tokens = await login();
    await refresh(tokens.refresh_token);
    await api('/v1/me', tokens.access_token);
    expect(kudos.counters).toMatchObject({
      tokenRequests: 2,
      authorizationCodeGrants: 1,
      refreshGrants: 1,
      apiCalls: 1,
    });
  });
});
