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
    const access = jwt({ user: 'alice-example', scope: ['profile'], exp: 2_000_000_000 });
    tokens.answer = { kind: 'json', body: { access_token: access } };
    const set = await strategy.refresh('rt-kept-0123456789');
    expect(set).toEqual({
      accessToken: access,
      refreshToken: 'rt-kept-0123456789',
      user: 'alice-example',
      expiresAt: 2_000_000_000_000,
      scope: ['profile'],
    });
  });

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
