import type { Request } from 'express';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type KudosProfile,
  KudosStrategy,
  type KudosStrategyOptions,
  type KudosTokenParams,
  type KudosVerifyWithParams,
  type KudosVerifyWithRequestAndParams,
  type Strategy,
} from '../../src/index.js';

// Compiled by `npm run typecheck` with noImplicitAny: a verify lambda of each arity must get its
// parameter types from the constructor overloads, without annotations.
const options: KudosStrategyOptions = {
  clientID: 'id',
  clientSecret: 's',
  callbackURL: '/cb',
  authURL: 'https://a.test',
  baseURL: 'https://b.test',
};

describe('KudosStrategy typings', () => {
  it('types inline verify lambdas of arity 4, and 5 with passReqToCallback', () => {
    const four = new KudosStrategy(options, (accessToken, refreshToken, profile, done) => {
      expectTypeOf(accessToken).toEqualTypeOf<string>();
      expectTypeOf(refreshToken).toEqualTypeOf<string | undefined>();
      expectTypeOf(profile).toEqualTypeOf<KudosProfile>();
      done(null, { id: profile.id });
    });
    const withReq = new KudosStrategy(
      { ...options, passReqToCallback: true },
      (req, _at, _rt, profile, done) => {
        expectTypeOf(req).toEqualTypeOf<Request>();
        done(null, { id: profile.id });
      },
    );
    expectTypeOf(four).toEqualTypeOf<Strategy>();
    expectTypeOf(withReq).toEqualTypeOf<Strategy>();
  });

  it('accepts the forms with params through the exported verify types', () => {
    const five: KudosVerifyWithParams = (_at, _rt, params, profile, done) => {
      expectTypeOf(params).toEqualTypeOf<KudosTokenParams>();
      done(null, { id: profile.id, expires: params.expires_in });
    };
    const six: KudosVerifyWithRequestAndParams = (req, _at, _rt, params, _profile, done) => {
      expectTypeOf(req).toEqualTypeOf<Request>();
      done(null, { id: params.user });
    };
    expectTypeOf(new KudosStrategy(options, five)).toEqualTypeOf<Strategy>();
    expectTypeOf(new KudosStrategy({ ...options, passReqToCallback: true }, six)).toEqualTypeOf<Strategy>();
  });
});
