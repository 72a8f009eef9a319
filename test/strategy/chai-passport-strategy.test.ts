import * as chai from 'chai';
// @ts-expect-error chai-passport-strategy ships no types
import chaiPassportStrategy from 'chai-passport-strategy';
import OAuth2Strategy from 'passport-oauth2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KudosError, type KudosProfile, KudosStrategy, type KudosStrategyOptions } from '../../src/index.js';
import { type FakeTokenServer, startTokenServer, tokenResponse } from '../helpers/token-server.js';

// How users of passport-oauth2's family unit-test a strategy: chai-passport-strategy (3.x) builds a bare
// request (`url: '/'`, no host), the test sets only `req.query`, and the strategy's actions are
// observed. With KudosStrategy that runs KudosStrategy's own code against a real token endpoint.

type Outcome = { action: string; args: unknown[] };
interface PassportTest {
  success(cb: (...args: unknown[]) => void): PassportTest;
  fail(cb: (...args: unknown[]) => void): PassportTest;
  error(cb: (...args: unknown[]) => void): PassportTest;
  redirect(cb: (...args: unknown[]) => void): PassportTest;
  request(cb: (req: Record<string, unknown>) => void): PassportTest;
  authenticate(options?: object): void;
}

// The plugin adds `passport` to the chai object it is given (ES module namespaces are sealed).
const extended = chai.use(chaiPassportStrategy) as unknown as {
  passport: { use(s: KudosStrategy): PassportTest };
};
const use = (strategy: KudosStrategy) => extended.passport.use(strategy);

function run(strategy: KudosStrategy, query: Record<string, unknown>): Promise<Outcome> {
  return new Promise((resolve) => {
    const settle =
      (action: string) =>
      (...args: unknown[]) =>
        resolve({ action, args });
    use(strategy)
      .success(settle('success'))
      .fail(settle('fail'))
      .error(settle('error'))
      .redirect(settle('redirect'))
      .request((req) => {
        req.query = query;
      })
      .authenticate();
  });
}

let tokens: FakeTokenServer;
beforeAll(async () => {
  tokens = await startTokenServer();
});
afterEach(() => tokens.reset());
afterAll(() => tokens.close());

/** The options of passport-oauth2's own tests, at the local token endpoint; `extra` overrides. */
function options(extra: Partial<KudosStrategyOptions> = {}): KudosStrategyOptions {
  return {
    clientID: 'ABC123',
    clientSecret: 'secret-of-the-client',
    callbackURL: 'https://www.example.net/auth/example/callback',
    authURL: 'https://kudos.example',
    baseURL: tokens.baseURL,
    state: false,
    ...extra,
  };
}

function strategy(extra: Partial<KudosStrategyOptions> = {}): KudosStrategy {
  return new KudosStrategy(options(extra), (accessToken, _refreshToken, profile, done) =>
    done(null, { id: profile.id, profile, accessToken }, { message: 'Hello' }),
  );
}

describe('KudosStrategy under chai-passport-strategy', () => {
  it('handles an authorized return request: code exchanged, profile from the token response', async () => {
    const outcome = await run(strategy(), { code: 'SplxlOBeZQQYbYS6WxSbIA' });
    expect(outcome.action).toBe('success');
    expect(outcome.args[0]).toMatchObject({ id: 'alice-example', accessToken: tokenResponse().access_token });
    expect(outcome.args[1]).toEqual({ message: 'Hello' });
    expect(tokens.requests[0]?.form).toMatchObject({
      code: 'SplxlOBeZQQYbYS6WxSbIA',
      redirect_uri: 'https://www.example.net/auth/example/callback',
      grant_type: 'authorization_code',
    });
  });

  it('redirects a request without callback parameters to the authorization page', async () => {
    const outcome = await run(strategy(), {});
    expect(outcome.action).toBe('redirect');
    expect(String(outcome.args[0])).toMatch(/^https:\/\/kudos\.example\/in\/oauth\/\?/);
  });

  it('fails a refusal and errors on a malformed code without asking the token endpoint', async () => {
    expect((await run(strategy(), { error: 'denied' })).action).toBe('fail');
    const outcome = await run(strategy(), { code: ['a', 'b'] });
    expect(outcome.action).toBe('error');
    expect(outcome.args[0]).toBeInstanceOf(KudosError);
    expect(outcome.args[0]).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(tokens.requests).toHaveLength(0);
  });

  it('calls a userProfile() override and passes its profile to verify', async () => {
    class Sub extends KudosStrategy {
      override userProfile(accessToken: string, done: (err?: unknown, profile?: unknown) => void): void {
        done(null, { username: 'jaredhanson', token: accessToken });
      }
    }
    const sub = new Sub(options({ callbackURL: 'https://www.example.net/cb' }), (_at, _rt, profile, done) =>
      done(null, { profile }),
    );
    const outcome = await run(sub, { code: 'c0de' });
    expect(outcome.args[0]).toEqual({
      profile: { username: 'jaredhanson', token: tokenResponse().access_token },
    });
  });

  it('honours skipUserProfile: the Kudos profile, userProfile() not called', async () => {
    const outcome = await run(
      strategy({ skipUserProfile: (_at: string, done: (e: null, s: boolean) => void) => done(null, true) }),
      {
        code: 'c0de',
      },
    );
    expect((outcome.args[0] as { profile: KudosProfile }).profile.provider).toBe('kudos');
  });

  it('maps a token endpoint error through parseErrorResponse; one that throws is InternalOAuthError, as in passport-oauth2', async () => {
    tokens.answer = { kind: 'text', status: 400, body: 'Invalid code' };
    class Sub extends KudosStrategy {
      override parseErrorResponse(body: string, status: number): Error | null {
        if (status !== 400) throw new Error('Whoops');
        return Object.assign(new Error('Custom OAuth error'), { body, status });
      }
    }
    const settings = options({ callbackURL: 'https://www.example.net/cb' });
    const verify = (
      _a: string,
      _r: string | undefined,
      p: KudosProfile,
      done: (e: null, u: object) => void,
    ) => done(null, { id: p.id });
    const custom = await run(new Sub(settings, verify), { code: 'c0de' });
    expect(custom.args[0]).toMatchObject({
      message: 'Custom OAuth error',
      body: 'Invalid code',
      status: 400,
    });
    tokens.answer = { kind: 'text', status: 500, body: 'Invalid code' };
    const fallback = await run(new Sub(settings, verify), { code: 'c0de' });
    expect(fallback.args[0]).toBeInstanceOf(OAuth2Strategy.InternalOAuthError);
    expect(fallback.args[0]).toMatchObject({
      message: 'Failed to obtain access token',
      oauthError: { statusCode: 500, data: 'Invalid code' },
    });
  });
});

describe('a relative callback URL under chai-passport-strategy, as passport-oauth2 resolves it', () => {
  it.each([
    [false, 'http'],
    [true, 'https'],
  ])('req.connection.encrypted %s gives %s://', async (encrypted, scheme) => {
    const relative = new KudosStrategy(
      options({ callbackURL: '/auth/example/callback' }),
      (_a, _r, p, done) => done(null, { id: p.id }),
    );
    const location = await new Promise<string>((resolve) => {
      use(relative)
        .redirect((url) => resolve(String(url)))
        .request((req) => {
          req.url = '/auth/example';
          req.headers = { host: 'www.example.net' };
          req.connection = { encrypted };
        })
        .authenticate();
    });
    expect(new URL(location).searchParams.get('redirect_uri')).toBe(
      `${scheme}://www.example.net/auth/example/callback`,
    );
  });
});
