import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KudosStrategy, type KudosTokenSet } from '../../src/index.js';
import { rejectionOf } from '../helpers/rejection.js';
import { type FakeTokenServer, startTokenServer } from '../helpers/token-server.js';

// The service keeps refresh tokens, and a refresh answer may repeat the refresh token or lack the
// fields the sign-in answer had (docs/kudos-service.md#refresh-and-revocation).
function jwt(payload: object): string {
  return `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
}

describe('strategy.refresh() with the refresh answers the service gives', () => {
  let tokens: FakeTokenServer;
  let strategy: KudosStrategy;
  const previous: KudosTokenSet = {
    accessToken: 'old-access',
    refreshToken: 'rt-kept-0123456789',
    user: 'alice-example',
    expiresAt: 0,
    scope: ['profile', 'email'],
  };
  beforeAll(async () => {
    tokens = await startTokenServer();
    strategy = new KudosStrategy(
      {
        clientID: 'c',
        clientSecret: 's',
        callbackURL: 'http://app.test/cb',
        authURL: tokens.baseURL,
        baseURL: tokens.baseURL,
      },
      (_a, _r, p, done) => done(null, { id: p.id }),
    );
  });
  afterEach(() => {
    tokens.requests.length = 0;
  });
  afterAll(() => tokens.close());

  it('accepts an answer that repeats the refresh token', async () => {
    tokens.answer = {
      kind: 'json',
      body: { user: 'alice-example', access_token: 'new-access', refresh_token: 'rt-kept-0123456789' },
    };
    const set = await strategy.refresh('rt-kept-0123456789', previous);
    expect(set).toMatchObject({
      accessToken: 'new-access',
      refreshToken: 'rt-kept-0123456789',
      user: 'alice-example',
    });
  });

  it('accepts an answer without refresh token, user, displayName or avatar: keeps the old refresh token, the user from the token', async () => {
    const iat = Math.floor(Date.now() / 1000);
    const access = jwt({ user: 'alice-example', scope: ['profile'], iat, exp: iat + 3600 });
    tokens.answer = { kind: 'json', body: { access_token: access } };
    const set = await strategy.refresh('rt-kept-0123456789');
    expect(set).toEqual({
      accessToken: access,
      refreshToken: 'rt-kept-0123456789',
      user: 'alice-example',
      expiresAt: (iat + 3600) * 1000,
      scope: ['profile'],
    });
  });

  it.each([
    ['exp 1e13 without iat', { exp: 1e13 }],
    ['exp 1e308 without iat', { exp: 1e308 }],
    ['exp 1e13 with a true iat', { exp: 1e13, iat: Math.floor(Date.now() / 1000) }],
    ['exp and iat both far out', { exp: 1e13, iat: 1e13 - 3600 }],
  ])(
    'clamps expiresAt for %s: a finite date at most an hour out (plus the clock skew allowed)',
    async (_n, claims) => {
      tokens.answer = { kind: 'json', body: { access_token: jwt({ user: 'alice-example', ...claims }) } };
      const before = Date.now();
      const set = await strategy.refresh('rt-kept-0123456789');
      expect(Number.isFinite(set.expiresAt)).toBe(true);
      const limit = 'iat' in claims && claims.iat < 1e12 ? 3600_000 : 3600_000 + 24 * 3600_000;
      expect(set.expiresAt - before).toBeLessThanOrEqual(limit + 1000);
      if (!('iat' in claims)) expect(set.expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
    },
  );

  it('keeps the user and scope of the previous token set when the answer and an opaque token say nothing', async () => {
    tokens.answer = { kind: 'json', body: { access_token: 'opaque-access' } };
    const set = await strategy.refresh('rt-kept-0123456789', previous);
    expect(set).toMatchObject({
      user: 'alice-example',
      scope: ['profile', 'email'],
      refreshToken: 'rt-kept-0123456789',
    });
  });

  it('refuses an answer that names no user when there is no earlier token set either', async () => {
    tokens.answer = { kind: 'json', body: { access_token: 'opaque-access' } };
    expect(await rejectionOf(strategy.refresh('rt-kept-0123456789'))).toMatchObject({
      code: 'invalid_token_response',
      status: 502,
    });
  });

  it('still refuses an answer without access_token, naming the field', async () => {
    tokens.answer = { kind: 'json', body: { user: 'alice-example' } };
    const error = await rejectionOf(strategy.refresh('rt-kept-0123456789', previous));
    expect(error).toMatchObject({ code: 'invalid_token_response' });
    expect(error.message).toContain('"access_token"');
  });
});
