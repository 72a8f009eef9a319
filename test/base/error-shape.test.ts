import { describe, expect, it } from 'vitest';
import { KudosNotificationError } from '../../packages/kudos-payments/src/index.js';
import { KudosApiError, KudosAuthorizationError, KudosError, KudosTokenError } from '../../src/index.js';

/** The deprecation warnings emitted while `build` runs (Node emits them on the next tick). */
async function warningsOf(build: () => void): Promise<Error[]> {
  const seen: Error[] = [];
  const listen = (warning: Error) => seen.push(warning);
  process.on('warning', listen);
  try {
    build();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listen);
  }
  return seen.filter((w) => w.name === 'DeprecationWarning');
}

describe('one constructor shape: new KudosXError(code, { message, cause, ... })', () => {
  const cause = new Error('below');

  it('makes each class from its code, its status from the table, no warning', async () => {
    const made: KudosError[] = [];
    const warnings = await warningsOf(() => {
      made.push(new KudosError('lock_timeout', { message: 'lock', cause }));
      made.push(new KudosTokenError('timeout', { message: 'slow', cause }));
      made.push(new KudosApiError('TOKEN_EXPIRED', { message: 'expired', httpStatus: 401 }));
      made.push(new KudosNotificationError('missing_field', { message: '"tx" is required', path: 'tx' }));
      made.push(new KudosAuthorizationError('server_error', { description: 'down' }));
    });
    expect(warnings).toEqual([]);
    expect(made.map((e) => [e.name, e.code, e.status])).toEqual([
      ['KudosError', 'lock_timeout', 503],
      ['KudosTokenError', 'timeout', 504],
      ['KudosApiError', 'TOKEN_EXPIRED', 401],
      ['KudosNotificationError', 'missing_field', 422],
      ['KudosAuthorizationError', 'server_error', 502],
    ]);
    expect(made[0]?.cause).toBe(cause);
    expect((made[3] as KudosNotificationError).path).toBe('tx');
    expect((made[4] as KudosAuthorizationError).description).toBe('down');
  });

  it('gives the meaning from the table as the message when none is given', () => {
    expect(new KudosError('revoke_url_missing').message).toBe(
      'strategy.revoke() needs the `revokeURL` option',
    );
  });

  it('keeps a word of no row in serviceCode, under the catch-all code', () => {
    const error = new KudosApiError('api_error', { httpStatus: 429, serviceCode: 'RATE_LIMITED' });
    expect(error).toMatchObject({
      code: 'api_error',
      status: 429,
      httpStatus: 429,
      serviceCode: 'RATE_LIMITED',
    });
  });
});

describe('no 0.x constructor shape: one shape per class, before the first release', () => {
  it('is refused by the compiler for each old shape (npm run typecheck fails if one compiles again)', () => {
    const oldShapes = [
      // @ts-expect-error new KudosError(message, { code, status }) is gone
      () => new KudosError('old message', { code: 'custom_code', status: 418 }),
      // @ts-expect-error new KudosTokenError(message, { code, status }) is gone
      () => new KudosTokenError('old token', { code: 'timeout', status: 504 }),
      // @ts-expect-error new KudosApiError(code, httpStatus, what) is gone
      () => new KudosApiError('LOGIN_NEEDED', 401, 'GET /v1/me'),
      // @ts-expect-error new KudosNotificationError(code, message, path) is gone
      () => new KudosNotificationError('missing_field', '"tx" is required', 'tx'),
      // @ts-expect-error new KudosAuthorizationError(error, description) is gone
      () => new KudosAuthorizationError('server_error', 'down'),
    ];
    expect(oldShapes).toHaveLength(5);
  });

  it('exports no deprecation warning code for them', async () => {
    expect(Object.keys(await import('../../src/index.js'))).not.toContain('ERROR_CONSTRUCTOR_WARNING');
  });
});
