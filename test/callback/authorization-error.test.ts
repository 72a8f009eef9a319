import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KudosAuthorizationError } from '../../src/index.js';
import { EXPRESS_FLAVORS, startApp, type TestApp } from '../helpers/express-app.js';
import { runStrategy, testStrategy } from '../helpers/run-strategy.js';
import { startTokenServer } from '../helpers/token-server.js';

const XSS = '<img src=x onerror=alert(1)>';

describe('KudosAuthorizationError only carries a safe code (regression: reflected XSS through ?error=)', () => {
  it.each([
    [XSS, 'authorization_error'],
    ['', 'authorization_error'],
    ['1starts_with_digit', 'authorization_error'],
    ['a'.repeat(65), 'authorization_error'],
    ['has space', 'authorization_error'],
    ['server_error', 'server_error'],
    ['temporarily_unavailable', 'temporarily_unavailable'],
    ['invalid_request', 'invalid_request'],
    ['invalid_scope', 'invalid_scope'],
    ['unauthorized_client', 'unauthorized_client'],
    ['unsupported_response_type', 'unsupported_response_type'],
    // A safe word of nobody's table is no code either: `code` is always one of the table's.
    ['LOGIN_NEEDED', 'authorization_error'],
    ['a'.repeat(64), 'authorization_error'],
  ])('error=%j becomes code %j', (raw, code) => {
    const error = new KudosAuthorizationError(raw);
    expect(error.code).toBe(code);
    expect(error.code).toMatch(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/);
    expect(error.rawCode).toBe(raw);
    expect(Object.keys(error)).not.toContain('rawCode');
    expect(JSON.stringify(error)).not.toContain('<img');
    expect(error.message).not.toContain('<img');
  });

  it('cuts error_description to 200 characters and removes control characters', () => {
    const error = new KudosAuthorizationError('invalid_request', {
      description: `line\r\nbreak\u0000\u001b[31m${'x'.repeat(500)}\u0085`,
    });
    expect(error.description).toHaveLength(200);
    expect(error.description).toMatch(/^linebreak\[31mx+$/);
    const controls = [...(error.message ?? '')].filter(
      (ch) =>
        (ch.codePointAt(0) ?? 0) < 0x20 ||
        ((ch.codePointAt(0) ?? 0) >= 0x7f && (ch.codePointAt(0) ?? 0) <= 0x9f),
    );
    expect(controls).toEqual([]);
  });

  it('maps server_error to 502, temporarily_unavailable to 503 and the rest to 400', () => {
    expect(new KudosAuthorizationError('server_error').status).toBe(502);
    expect(new KudosAuthorizationError('temporarily_unavailable').status).toBe(503);
    expect(new KudosAuthorizationError(XSS).status).toBe(400);
  });

  it('is what the strategy hands to error() for a hostile callback', async () => {
    const strategy = testStrategy({ callbackURL: '/cb' });
    const outcome = await runStrategy(strategy, {
      url: `/cb?error=${encodeURIComponent(XSS)}&error_description=${encodeURIComponent(`${XSS}\n`.repeat(50))}`,
    });
    expect(outcome).toMatchObject({ action: 'error', error: { code: 'authorization_error', status: 400 } });
    const error = (outcome as { error: KudosAuthorizationError }).error;
    expect(error.description?.length).toBeLessThanOrEqual(200);
    expect(error.description).not.toContain('\n');
  });
});

describe.each(EXPRESS_FLAVORS)('the callback with a hostile ?error= over real HTTP (%s)', (flavor) => {
  let app: TestApp;
  beforeAll(async () => {
    const tokens = await startTokenServer();
    app = await startApp(flavor, { strategy: { authURL: tokens.baseURL, baseURL: tokens.baseURL } });
    return () => tokens.close();
  });
  afterAll(() => app.close());

  it('reaches the error handler as authorization_error, the markup nowhere in the answer', async () => {
    const res = await fetch(`${app.url}/callback?error=${encodeURIComponent(XSS)}`);
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(JSON.parse(body)).toMatchObject({ name: 'KudosAuthorizationError', code: 'authorization_error' });
    expect(body).not.toContain('<img');
  });
});
