import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KudosStrategy, type KudosStrategyOptions } from '../../src/index.js';
import { runStrategy } from '../helpers/run-strategy.js';

const verify = (
  _a: string,
  _r: string | undefined,
  profile: { id: string },
  done: (e: null, u: object) => void,
) => done(null, { id: profile.id });
const valid: KudosStrategyOptions = {
  clientID: 'id',
  clientSecret: 'secret',
  callbackURL: '/cb',
  authURL: 'https://auth.kudos.example',
  baseURL: 'https://api.kudos.example/',
};

function build(options: object): KudosStrategy {
  return new KudosStrategy(options as unknown as KudosStrategyOptions, verify);
}

describe('KudosStrategy options', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());

  it.each(['clientID', 'clientSecret', 'callbackURL'])('throws TypeError naming a missing "%s"', (name) => {
    const { [name as keyof KudosStrategyOptions]: _gone, ...rest } = valid;
    expect(() => build(rest)).toThrow(TypeError);
    expect(() => build(rest)).toThrow(`KudosStrategy requires a "${name}" option`);
    expect(() => build({ ...valid, [name]: '' })).toThrow(`"${name}"`);
  });

  it('throws TypeError when neither authURL nor authorizationURL is given', () => {
    const { authURL: _gone, ...rest } = valid;
    expect(() => build(rest)).toThrow(
      'KudosStrategy requires the "authURL" option (or "authorizationURL"): Kudos has no public default host',
    );
  });

  it('throws TypeError when neither baseURL nor tokenURL is given', () => {
    const { baseURL: _gone, ...rest } = valid;
    expect(() => build(rest)).toThrow(TypeError);
    expect(() => build(rest)).toThrow('"baseURL" option (or "tokenURL")');
  });

  it('throws on a URL option that is not absolute, a bad timeout, a bad scope or no verify function', () => {
    expect(() => build({ ...valid, baseURL: 'api.kudos' })).toThrow(
      'option "baseURL" must be an absolute URL',
    );
    expect(() => build({ ...valid, timeoutMs: 0 })).toThrow('option "timeoutMs" must be a positive number');
    expect(() => build({ ...valid, scope: [1] })).toThrow('option "scope" must be a string or an array');
    expect(() => build(undefined as unknown as object)).toThrow('requires an options object');
    expect(() => new KudosStrategy(valid, undefined as unknown as typeof verify)).toThrow('verify function');
  });

  /** Where the strategy sends the browser to sign in, and with which scope. */
  async function authorizationRedirect(options: object): Promise<URL> {
    const outcome = await runStrategy(build({ ...options, state: false }), { url: '/login' });
    if (outcome.action !== 'redirect') throw new Error(`expected a redirect, got ${outcome.action}`);
    return new URL(outcome.url);
  }

  /** Answers one token request at `origin` + `path` (only there) with a token response. */
  function tokenEndpoint(origin: string, path: string): nock.Scope {
    return nock(origin).post(path).reply(200, { user: 'alice', access_token: 'at', refresh_token: 'rt' });
  }

  it('derives the two URLs from authURL and baseURL, trailing slash or not', async () => {
    const redirect = await authorizationRedirect(valid);
    expect(redirect.origin + redirect.pathname).toBe('https://auth.kudos.example/in/oauth/');
    const exchange = tokenEndpoint('https://api.kudos.example', '/oauth/access_token');
    const strategy = build({ ...valid, state: false });
    expect(await runStrategy(strategy, { url: '/cb?code=abc' })).toMatchObject({ action: 'success' });
    exchange.done();
    const refresh = tokenEndpoint('https://api.kudos.example', '/oauth/access_token');
    await expect(strategy.refresh('rt')).resolves.toMatchObject({ accessToken: 'at' });
    refresh.done();
    expect(strategy.name).toBe('kudos');
  });

  it('lets explicit authorizationURL and tokenURL override the derived ones', async () => {
    const options = {
      ...valid,
      authorizationURL: 'https://a.example/authorize',
      tokenURL: 'https://t.example/token',
    };
    const redirect = await authorizationRedirect(options);
    expect(redirect.origin + redirect.pathname).toBe('https://a.example/authorize');
    const exchange = tokenEndpoint('https://t.example', '/token');
    expect(await runStrategy(build({ ...options, state: false }), { url: '/cb?code=abc' })).toMatchObject({
      action: 'success',
    });
    exchange.done();
  });

  it('asks for scope arrays joined with one space, strings as given, and profile by default', async () => {
    const scopeOf = async (options: object) =>
      (await authorizationRedirect(options)).searchParams.get('scope');
    expect(await scopeOf({ ...valid, scope: ['profile', 'email', 'read:kudos'] })).toBe(
      'profile email read:kudos',
    );
    expect(await scopeOf({ ...valid, scope: 'profile email' })).toBe('profile email');
    expect(await scopeOf(valid)).toBe('profile');
  });
});
