import { describe, expect, it } from 'vitest';
import { KudosStrategy, type KudosStrategyOptions } from '../../src/index.js';

const verify = () => undefined;
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
    expect(() => build({ ...valid, timeout: 0 })).toThrow('option "timeout" must be a positive number');
    expect(() => build({ ...valid, scope: [1] })).toThrow('option "scope" must be a string or an array');
    expect(() => build(undefined as unknown as object)).toThrow('requires an options object');
    expect(() => new KudosStrategy(valid, undefined as unknown as typeof verify)).toThrow('verify function');
  });

  it('derives the two URLs from authURL and baseURL, trailing slash or not', () => {
    const strategy = build(valid);
    expect(strategy._kudos.authorizationURL).toBe('https://auth.kudos.example/in/oauth/');
    expect(strategy._kudos.tokenURL).toBe('https://api.kudos.example/oauth/access_token');
    expect(strategy._kudos.refreshURL).toBe('https://api.kudos.example/oauth/access_token');
    expect(strategy._kudos.request.timeout).toBe(10_000);
    expect(strategy.name).toBe('kudos');
  });

  it('lets authorizationURL and tokenURL override the derived URLs, without the bases', () => {
    const strategy = build({
      clientID: 'id',
      clientSecret: 's',
      callbackURL: '/cb',
      authorizationURL: 'https://a.example/authorize',
      tokenURL: 'https://t.example/token',
    });
    expect(strategy._kudos.authorizationURL).toBe('https://a.example/authorize');
    expect(strategy._kudos.tokenURL).toBe('https://t.example/token');
  });

  it('joins scope arrays with one space and keeps strings', () => {
    expect(build({ ...valid, scope: ['profile', 'email', 'read:kudos'] })._kudos.scope).toBe(
      'profile email read:kudos',
    );
    expect(build({ ...valid, scope: 'profile email' })._kudos.scope).toBe('profile email');
    expect(build(valid)._kudos.scope).toBe('profile');
  });
});
