import { describe, expect, it } from 'vitest';
import { readCallbackParams } from '../../src/callback/params.js';

describe('readCallbackParams', () => {
  it('is a start when there is no code, state or error', () => {
    expect(readCallbackParams({ url: '/auth/kudos' })).toEqual({ kind: 'start' });
    expect(readCallbackParams({ url: '/auth/kudos?next=%2Fme' })).toEqual({ kind: 'start' });
  });

  it('prefers originalUrl (Express mounts rewrite req.url)', () => {
    expect(readCallbackParams({ url: '/', originalUrl: '/auth?code=c&state=s' })).toEqual({
      kind: 'code',
      code: 'c',
      state: 's',
    });
  });

  it('accepts the same value under two names', () => {
    expect(readCallbackParams({ url: '/?code=c&auth_code=c' })).toMatchObject({ kind: 'code', code: 'c' });
  });

  it('reads a form body and rejects non-string body values', () => {
    expect(readCallbackParams({ url: '/', body: { authorization_code: 'c', state: 's' } })).toMatchObject({
      kind: 'code',
      code: 'c',
    });
    expect(readCallbackParams({ url: '/', body: { code: ['a', 'b'] } })).toEqual({
      kind: 'invalid',
      message: 'Authorization code "code" was given more than once',
    });
    expect(readCallbackParams({ url: '/', body: { code: { nested: 'x' } } })).toEqual({
      kind: 'invalid',
      message: 'Authorization code "code" must be a single string',
    });
  });

  it('rejects a repeated state and an overlong code', () => {
    expect(readCallbackParams({ url: '/?code=c&state=a&state=b' })).toEqual({
      kind: 'invalid',
      message: 'Parameter "state" was given more than once',
    });
    expect(readCallbackParams({ url: `/?code=${'x'.repeat(5000)}` })).toMatchObject({ kind: 'invalid' });
  });

  it('reads the framework-parsed req.query when there is one (a unit test may set only that)', () => {
    expect(readCallbackParams({ url: '/', query: { code: 'c', state: 's' } })).toEqual({
      kind: 'code',
      code: 'c',
      state: 's',
    });
    expect(readCallbackParams({ url: '/', query: { code: ['c'] } })).toEqual({
      kind: 'invalid',
      message: 'Authorization code "code" must be a single string',
    });
    // Express 5's simple parser keeps the key `code[]`: still a callback parameter, still malformed.
    expect(readCallbackParams({ url: '/?code[]=c', query: { 'code[]': 'c' } })).toMatchObject({
      kind: 'invalid',
    });
  });

  it('treats any callback parameter as a callback: only a request with none is a start', () => {
    for (const url of ['/?state=s', '/?error_description=x', '/?error_uri=x', '/?error=']) {
      expect(readCallbackParams({ url })).toMatchObject({ kind: 'invalid' });
    }
    expect(readCallbackParams({ url: '/?codes=1&stated=2&errors=3' })).toEqual({ kind: 'start' });
  });

  it('reads error and error_description, even when a code is present', () => {
    expect(readCallbackParams({ url: '/?error=denied&state=s&code=c' })).toEqual({
      kind: 'error',
      error: 'denied',
      description: undefined,
    });
  });

  it('reads an unencoded query as URLSearchParams reads it (empty pairs, bare keys, "=" in values)', () => {
    // The same URL, its query written with and without percent-encoding: the first is split by
    // hand, the second by URLSearchParams; both must read the same parameters.
    const cases: [string, string][] = [
      ['/?code=a=b&&state=s&', '/?%63ode=a%3Db&&state=s&'],
      ['/?=&code=c&state', '/?=&%63ode=c&state'],
      ['/?code&state=s', '/?%63ode&state=s'],
      ['/?code=x&code=y', '/?code=x&%63ode=y'],
      ['/?state.x=1&code=c', '/?state.x=1&%63ode=c'],
      ['/?error=denied&error_description=no', '/?error=denied&error_description=n%6F'],
      ['/?next=/me&code=c&state=s', '/?next=%2Fme&code=c&state=s'],
    ];
    for (const [plain, encoded] of cases) {
      expect(readCallbackParams({ url: plain })).toEqual(readCallbackParams({ url: encoded }));
    }
    expect(readCallbackParams({ url: '/?code=a=b&&state=s&' })).toEqual({
      kind: 'code',
      code: 'a=b',
      state: 's',
    });
    expect(readCallbackParams({ url: '/?=&code=c&state' })).toEqual({ kind: 'code', code: 'c', state: '' });
    expect(readCallbackParams({ url: '/?code&state=s' })).toMatchObject({ kind: 'invalid' });
    expect(readCallbackParams({ url: '/?state.x=1&code=c' })).toEqual({
      kind: 'invalid',
      message: 'Parameter "state" must be a single string',
    });
  });
});
