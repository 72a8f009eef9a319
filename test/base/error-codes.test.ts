import { describe, expect, expectTypeOf, it } from 'vitest';
import type { KudosErrorCodeOf } from '../../packages/kudos-core/src/base/error-codes.js';
import { NOTIFICATION_ERROR_STATUS } from '../../packages/kudos-payments/src/core/errors.js';
import {
  KudosNotificationError,
  type KudosNotificationErrorCode,
} from '../../packages/kudos-payments/src/index.js';
import {
  KUDOS_ERROR_CODES,
  KudosApiError,
  KudosAuthorizationError,
  KudosError,
  type KudosErrorClassName,
  type KudosErrorCode,
  KudosTokenError,
} from '../../src/index.js';

/** One error of `kind` with `code`, made by the class's one constructor shape (the service answered 418). */
function make(kind: KudosErrorClassName, code: string): KudosError {
  const options = { message: `a ${code}`, httpStatus: 418 };
  switch (kind) {
    case 'KudosError':
      return new KudosError(code as KudosErrorCodeOf<'KudosError'>, options);
    case 'KudosAuthorizationError':
      return new KudosAuthorizationError(code);
    case 'KudosTokenError':
      return new KudosTokenError(code as KudosErrorCodeOf<'KudosTokenError'>, options);
    case 'KudosApiError':
      return new KudosApiError(code as KudosErrorCodeOf<'KudosApiError'>, options);
    case 'KudosNotificationError':
      return new KudosNotificationError(code as KudosNotificationErrorCode, options);
  }
}

describe('KUDOS_ERROR_CODES', () => {
  it('lists each code once per class, with a status and a meaning', () => {
    const keys = new Set(KUDOS_ERROR_CODES.map((row) => `${row.error} ${row.code}`));
    expect(keys.size).toBe(KUDOS_ERROR_CODES.length);
    for (const row of KUDOS_ERROR_CODES) {
      expect(row.meaning.length).toBeGreaterThan(10);
      expect(row.status === 'as answered' || (row.status >= 400 && row.status < 600)).toBe(true);
    }
  });

  it.each(KUDOS_ERROR_CODES.map((row) => [row.error, row.code, row] as const))(
    '%s %s takes its status from the table',
    (kind, code, row) => {
      const error = make(kind, code);
      expect(error).toBeInstanceOf(KudosError);
      expect(error.name).toBe(kind);
      expect(error.code).toBe(code);
      expect(error.status).toBe(row.status === 'as answered' ? 418 : row.status);
    },
  );

  it('types each class`s code as the union of its rows, checked by the compiler', () => {
    expectTypeOf<KudosTokenError['code']>().toEqualTypeOf<KudosErrorCodeOf<'KudosTokenError'>>();
    expectTypeOf<KudosApiError['code']>().toEqualTypeOf<KudosErrorCodeOf<'KudosApiError'>>();
    expectTypeOf<KudosNotificationError['code']>().toEqualTypeOf<
      KudosErrorCodeOf<'KudosNotificationError'>
    >();
    expectTypeOf<KudosAuthorizationError['code']>().toEqualTypeOf<
      KudosErrorCodeOf<'KudosAuthorizationError'>
    >();
    expectTypeOf<KudosError['code']>().toEqualTypeOf<KudosErrorCode>();
    expectTypeOf<KudosErrorCode>().not.toEqualTypeOf<string>();
    const refused = [
      // @ts-expect-error a code of no row
      () => new KudosError('no_such_code'),
      // @ts-expect-error a webhook code is not a token error's
      () => new KudosTokenError('invalid_json'),
      // @ts-expect-error a token error's code is not the API's
      () => new KudosApiError('reauth_required'),
      // @ts-expect-error the status is the table's, not the caller's
      () => new KudosNotificationError('invalid_json', { status: 200 }),
    ];
    // JavaScript that passes them anyway gets an error still (500 for a code of no row), not a throw.
    expect(refused.map((build) => build().status)).toEqual([500, 500, 500, 400]);
  });

  it('is where the webhook receiver takes its statuses from', () => {
    for (const [code, status] of Object.entries(NOTIFICATION_ERROR_STATUS)) {
      expect(
        KUDOS_ERROR_CODES.find((row) => row.code === code && row.error === 'KudosNotificationError'),
      ).toMatchObject({
        status,
        error: 'KudosNotificationError',
      });
    }
    expect(Object.keys(NOTIFICATION_ERROR_STATUS)).toHaveLength(
      KUDOS_ERROR_CODES.filter((row) => row.error === 'KudosNotificationError').length,
    );
  });
});
