import { describe, expect, it } from 'vitest';
import {
  ERROR_CONSTRUCTOR_WARNING,
  KudosApiError,
  KudosAuthorizationError,
  KudosError,
  KudosTokenError,
} from '../../src/index.js';
import { KudosWebhookError } from '../../src/webhook/index.js';

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
  return seen.filter((w) => (w as Error & { code?: string }).code === ERROR_CONSTRUCTOR_WARNING);
}

describe('one constructor shape: new KudosXError(code, { message, cause, ... })', () => {
  const cause = new Error('below');

  it('makes each class from its code, its status from the table, no warning', async () => {
    const made: KudosError[] = [];
    const warnings = await warningsOf(() => {
      made.push(new KudosError('lock_timeout', { message: 'lock', cause }));
      made.push(new KudosTokenError('timeout', { message: 'slow', cause }));
      made.push(new KudosApiError('TOKEN_EXPIRED', { message: 'expired', httpStatus: 401 }));
      made.push(new KudosWebhookError('missing_field', { message: '"tx" is required', path: 'tx' }));
      made.push(new KudosAuthorizationError('server_error', { description: 'down' }));
    });
    expect(warnings).toEqual([]);
    expect(made.map((e) => [e.name, e.code, e.status])).toEqual([
      ['KudosError', 'lock_timeout', 503],
      ['KudosTokenError', 'timeout', 504],
      ['KudosApiError', 'TOKEN_EXPIRED', 401],
      ['KudosWebhookError', 'missing_field', 422],
      ['KudosAuthorizationError', 'server_error', 502],
    ]);
    expect(made[0]?.cause).toBe(cause);
    expect((made[3] as KudosWebhookError).path).toBe('tx');
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

describe('the 0.x constructor shapes, still read until the next minor version', () => {
  it('read each old shape as before, with one deprecation warning per class', async () => {
    const made: KudosError[] = [];
    const warnings = await warningsOf(() => {
      for (let i = 0; i < 2; i++) {
        made.push(new KudosError('old message', { code: 'custom_code', status: 418 }));
        made.push(
          new KudosTokenError('old token', { code: 'timeout', status: 504, httpStatus: 400, body: 'b' }),
        );
        made.push(new KudosApiError('LOGIN_NEEDED', 401, 'GET /v1/me'));
        made.push(new KudosApiError('timeout', undefined, 'GET /v1/me', { status: 504, message: 'slow' }));
        made.push(new KudosWebhookError('missing_field', '"tx" is required', 'tx', 'why'));
        made.push(new KudosAuthorizationError('server_error', 'down'));
      }
    });
    expect(made.slice(0, 6).map((e) => [e.name, e.code, e.status, e.message])).toEqual([
      ['KudosError', 'custom_code', 418, 'old message'],
      ['KudosTokenError', 'timeout', 504, 'old token'],
      ['KudosApiError', 'LOGIN_NEEDED', 401, 'Kudos API answered HTTP 401 LOGIN_NEEDED for GET /v1/me'],
      ['KudosApiError', 'timeout', 504, 'slow'],
      ['KudosWebhookError', 'missing_field', 422, '"tx" is required'],
      [
        'KudosAuthorizationError',
        'server_error',
        502,
        'Kudos authorization failed with error "server_error": down',
      ],
    ]);
    expect((made[1] as KudosTokenError).httpStatus).toBe(400);
    expect((made[1] as KudosTokenError).body).toBe('b');
    expect((made[4] as KudosWebhookError).path).toBe('tx');
    expect(made[4]?.cause).toBe('why');
    expect((made[5] as KudosAuthorizationError).description).toBe('down');
    // Once per class and process: this test may not be the first to warn of a class.
    const classes = warnings.map((w) => /new (Kudos\w+)\(/.exec(w.message)?.[1]);
    expect(new Set(classes).size).toBe(classes.length);
    for (const w of warnings) expect(w.name).toBe('DeprecationWarning');
  });
});
