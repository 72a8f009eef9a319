import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KudosStrategy, type KudosStrategyOptions, type KudosVerify } from '../../src/index.js';
import { runStrategy } from '../helpers/run-strategy.js';
import { captureTokenForms } from '../helpers/token-forms.js';

const ORIGIN = 'https://api.kudos.test';
const OPTIONS: KudosStrategyOptions = {
  clientID: 'client',
  clientSecret: 'secret',
  callbackURL: 'https://app.test/cb',
  authURL: 'https://auth.kudos.test',
  baseURL: ORIGIN,
  state: false,
};
const ANSWER = { user: 'alice', displayName: 'Alice', access_token: 'at', refresh_token: 'rt' };

function strategy(verify: KudosVerify, extra: Partial<KudosStrategyOptions> = {}): KudosStrategy {
  return new KudosStrategy({ ...OPTIONS, ...extra }, verify);
}

describe('KudosStrategy (unit)', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());

  it('runs on Object.create(strategy), as Passport calls it', async () => {
    nock(ORIGIN).post('/oauth/access_token').reply(200, ANSWER);
    const outcome = await runStrategy(
      strategy((_at, _rt, profile, done) => done(null, { id: profile.id })),
      { url: '/cb?code=c' },
    );
    expect(outcome).toEqual({ action: 'success', user: { id: 'alice' }, info: {} });
  });

  it('calls a verify function of arity 4 with (accessToken, refreshToken, profile, done)', async () => {
    nock(ORIGIN).post('/oauth/access_token').reply(200, ANSWER);
    const seen: unknown[] = [];
    await runStrategy(
      strategy((at, rt, profile, done) => {
        seen.push(at, rt, profile.displayName);
        done(null, {});
      }),
      { url: '/cb?code=c' },
    );
    expect(seen).toEqual(['at', 'rt', 'Alice']);
  });

  it('passes refreshToken undefined when the service sent none', async () => {
    nock(ORIGIN).post('/oauth/access_token').reply(200, { user: 'alice', access_token: 'at' });
    let refresh: unknown = 'unset';
    await runStrategy(
      strategy((_at, rt, _profile, done) => {
        refresh = rt;
        done(null, {});
      }),
      { url: '/cb?code=c' },
    );
    expect(refresh).toBeUndefined();
  });

  it('fails with the info given by a verify function that returns no user', async () => {
    nock(ORIGIN).post('/oauth/access_token').reply(200, ANSWER);
    const outcome = await runStrategy(
      strategy((_at, _rt, _profile, done) => done(null, false, { message: 'banned' })),
      { url: '/cb?code=c' },
    );
    expect(outcome).toEqual({ action: 'fail', challenge: { message: 'banned' }, status: undefined });
  });

  it('turns a verify error, or a verify function that throws, into error()', async () => {
    nock(ORIGIN).post('/oauth/access_token').times(2).reply(200, ANSWER);
    const boom = new Error('db down');
    expect(
      await runStrategy(
        strategy((_at, _rt, _p, done) => done(boom)),
        { url: '/cb?code=c' },
      ),
    ).toEqual({ action: 'error', error: boom });
    expect(
      await runStrategy(
        strategy(() => {
          throw boom;
        }),
        { url: '/cb?code=c' },
      ),
    ).toEqual({ action: 'error', error: boom });
  });

  it('sends the PKCE code_verifier kept by the state store', async () => {
    const { forms } = captureTokenForms(ORIGIN, ANSWER);
    const s = strategy((_at, _rt, _p, done) => done(null, {}), { state: true, pkce: true });
    const session: Record<string, unknown> = {};
    const start = await runStrategy(s, { url: '/login', session } as never);
    expect(start.action).toBe('redirect');
    const location = new URL((start as { url: string }).url);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    const state = location.searchParams.get('state');
    const done = await runStrategy(s, { url: `/cb?code=c&state=${state}`, session } as never);
    expect(done.action).toBe('success');
    expect(forms[0]?.code_verifier).toMatch(/^[\w-]{43}$/);
  });

  it('adds the fields of a tokenParams() override to the token request', async () => {
    const { forms } = captureTokenForms(ORIGIN, ANSWER);
    class Custom extends KudosStrategy {
      override tokenParams(): object {
        return { audience: 'shop', max_age: 42 };
      }
    }
    await runStrategy(new Custom(OPTIONS, (_a, _r, _p, done) => done(null, {})), { url: '/cb?code=c' });
    expect(forms[0]?.audience).toBe('shop');
    expect(forms[0]?.max_age).toBe('42'); // as node-oauth encodes a number
    expect(forms[0]?.grant_type).toBe('authorization_code');
  });

  it('uses the per-request scope and resolves a relative callbackURL against the request', async () => {
    const s = strategy((_a, _r, _p, done) => done(null, {}), { callbackURL: '/auth/cb' });
    const start = await runStrategy(s, { url: '/login' }, { scope: ['profile', 'read:kudos'] });
    const location = new URL((start as { url: string }).url);
    expect(location.searchParams.get('scope')).toBe('profile read:kudos');
    expect(location.searchParams.get('redirect_uri')).toBe('http://app.test/auth/cb');
  });

  it('trusts X-Forwarded-Proto for the callback URL only with proxy: true', async () => {
    const { forms } = captureTokenForms(ORIGIN, ANSWER, { times: 2 });
    const headers = { host: 'app.test', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.test' };
    const verify: KudosVerify = (_a, _r, _p, done) => done(null, {});
    await runStrategy(strategy(verify, { callbackURL: '/cb' }), { url: '/cb?code=c', headers } as never);
    expect(forms[0]?.redirect_uri).toBe('http://app.test/cb');
    await runStrategy(strategy(verify, { callbackURL: '/cb', proxy: true }), {
      url: '/cb?code=c',
      headers,
    } as never);
    expect(forms[1]?.redirect_uri).toBe('https://public.test/cb');
  });

  it('reports a missing session as an error that says how to fix it', async () => {
    const s = strategy((_a, _r, _p, done) => done(null, {}), { state: true });
    const outcome = await runStrategy(s, { url: '/cb?code=c&state=x', session: undefined } as never);
    expect(outcome.action).toBe('error');
    expect(String((outcome as { error: Error }).error.message)).toMatch(/session support/);
  });
});
