import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { KudosTokenError } from '../../src/index.js';
import { requestTokens } from '../../src/tokens/token-request.js';
import { rejectionOf } from '../helpers/rejection.js';
import { captureTokenForms } from '../helpers/token-forms.js';

const ORIGIN = 'https://api.kudos.test';
const ENDPOINT = `${ORIGIN}/oauth/access_token`;
const FORM = {
  grant_type: 'authorization_code',
  code: 'AUTHCODE-1234567890',
  client_id: 'client',
  client_secret: 'SECRET-abcdefghij',
  redirect_uri: 'https://app.example/cb',
};

function expectNoSecrets(error: KudosTokenError): void {
  // Everything an app could log, the non-enumerable raw body included, in every encoding.
  const visible = `${error.message} ${JSON.stringify(error)} ${error.code} ${error.body ?? ''}`;
  for (const secret of [FORM.code, FORM.client_secret, 'REFRESH-SECRET']) {
    for (const form of [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
    ])
      expect(visible).not.toContain(form);
  }
}

describe('requestTokens', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());

  it('sends the form and returns the validated token response', async () => {
    const { forms, scope } = captureTokenForms(ORIGIN, { user: 'alice', access_token: 'at' });
    await expect(requestTokens(ENDPOINT, FORM, { timeout: 1000 })).resolves.toEqual({
      user: 'alice',
      access_token: 'at',
    });
    expect(forms).toEqual([FORM]);
    scope.done();
  });

  it.each([
    [400, 'MISSING_CLIENT_INFO'],
    [400, 'INVALID_CLIENT_CRED'],
    [400, 'BODY_PARSE_FAILED'],
    [401, 'LOGIN_NEEDED'],
  ])('reads the plain-text code of an HTTP %i answer: %s', async (status, code) => {
    nock(ORIGIN).post('/oauth/access_token').reply(status, `${code}\n`, { 'content-type': 'text/plain' });
    const error = await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 1000 }));
    expect(error).toMatchObject({ code, status: 502, httpStatus: status, name: 'KudosTokenError' });
    expect(error.message).toBe(`Kudos token endpoint answered HTTP ${status} ${code}`);
  });

  it('uses token_endpoint_error when the error body has no readable code', async () => {
    nock(ORIGIN).post('/oauth/access_token').reply(500, '<html>Internal Server Error</html>');
    const error = await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 1000 }));
    expect(error).toMatchObject({ code: 'token_endpoint_error', httpStatus: 500 });
  });

  it('treats a 200 answer that carries an OAuth error object as that error', async () => {
    nock(ORIGIN).post('/oauth/access_token').reply(200, { error: 'invalid_grant' });
    expect(await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 1000 }))).toMatchObject({
      code: 'invalid_grant',
    });
  });

  it('never echoes the code or the secret when the service echoes them back', async () => {
    nock(ORIGIN).post('/oauth/access_token').reply(400, FORM.code, { 'content-type': 'text/plain' });
    const echoedCode = await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 1000 }));
    expect(echoedCode.code).toBe('token_endpoint_error');
    expectNoSecrets(echoedCode);

    nock(ORIGIN)
      .post('/oauth/access_token')
      .reply(400, { error: 'invalid_client', error_description: `bad secret ${FORM.client_secret}` });
    const echoedSecret = await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 1000 }));
    expect(echoedSecret.message).toBe(
      'Kudos token endpoint answered HTTP 400 invalid_client: bad secret [REDACTED]',
    );
    expectNoSecrets(echoedSecret);
    // The raw body stays available for debugging, not enumerable, and redacted too.
    expect(echoedSecret.body).toContain('bad secret [REDACTED]');
    expect(echoedSecret.body).not.toContain(FORM.client_secret);
    expect(Object.keys(echoedSecret)).not.toContain('body');
  });

  it('redacts a secret the service echoes form-encoded, URL-encoded or JSON-escaped (regression: cl%21ent)', async () => {
    const form = { ...FORM, client_secret: 'cl!ent "secret"/+1' };
    for (const echo of [
      new URLSearchParams(form).toString(),
      encodeURIComponent(form.client_secret).toLowerCase(),
      JSON.stringify({ error: 'invalid_client', error_description: `got ${form.client_secret}` }),
    ]) {
      nock(ORIGIN).post('/oauth/access_token').reply(400, echo);
      const error = await rejectionOf(requestTokens(ENDPOINT, form, { timeout: 1000 }));
      const visible = `${error.message} ${JSON.stringify(error)} ${error.body ?? ''}`;
      expect(visible).not.toContain('cl!ent');
      expect(visible).not.toContain('cl%21ent');
      expect(visible).not.toContain('cl%21ent'.toUpperCase().replace('CL', 'cl'));
      expect(visible).not.toContain(FORM.code);
      expect(error.body).toContain('[REDACTED]');
    }
  });

  it('redacts a refresh token sent in the form the same way', async () => {
    const form = {
      grant_type: 'refresh_token',
      refresh_token: 'REFRESH-SECRET',
      client_id: 'c',
      client_secret: 's1',
    };
    nock(ORIGIN).post('/oauth/access_token').reply(400, 'REFRESH-SECRET');
    expectNoSecrets(await rejectionOf(requestTokens(ENDPOINT, form, { timeout: 1000 })));
  });

  it('rejects a 2xx body that is not JSON, or JSON that is not a token response', async () => {
    nock(ORIGIN).post('/oauth/access_token').reply(200, 'ok');
    expect(await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 1000 }))).toMatchObject({
      code: 'invalid_token_response',
      status: 502,
      httpStatus: 200,
      message: `Kudos token endpoint ${ORIGIN} answered HTTP 200 but not with JSON`,
      body: 'ok',
    });
    nock(ORIGIN).post('/oauth/access_token').reply(200, 'null');
    expect(await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 1000 }))).toMatchObject({
      code: 'invalid_token_response',
    });
  });

  it('rejects a response body over 1 MiB', async () => {
    nock(ORIGIN)
      .post('/oauth/access_token')
      .reply(200, 'x'.repeat(1024 * 1024 + 10));
    expect(await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 5000 }))).toMatchObject({
      code: 'invalid_token_response',
    });
  });

  it('times out with code "timeout" and status 504 when the answer is delayed', async () => {
    nock(ORIGIN).post('/oauth/access_token').delay(2000).reply(200, { user: 'a', access_token: 'b' });
    const error = await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 100 }));
    expect(error).toMatchObject({ code: 'timeout', status: 504 });
    expect(error.message).toBe(`Kudos token endpoint ${ORIGIN} did not answer within 100 ms`);
  });

  it('reports a refused connection as network_error without the form values', async () => {
    // A real closed port on 127.0.0.1 (nock's replyWithError does not reach keep-alive agents).
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    nock.enableNetConnect('127.0.0.1');
    try {
      const error = await rejectionOf(
        requestTokens(`http://127.0.0.1:${port}/oauth/access_token`, FORM, { timeout: 1000 }),
      );
      expect(error).toMatchObject({ code: 'network_error', status: 502 });
      expect(error.message).toBe(
        `Kudos token endpoint http://127.0.0.1:${port} could not be reached (ECONNREFUSED)`,
      );
      expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
      expectNoSecrets(error);
    } finally {
      nock.disableNetConnect();
    }
  });
});

// A provider's error_description reaches messages and logs without a character that can forge a log
// line or make it read otherwise (a line separator, a bidirectional control).
describe('a provider’s words in an error message', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());

  it('keeps no control, line-separator or bidirectional character of error_description', async () => {
    const described = `bad\u2028ERROR forged line\u2029x\u202eevil\u2066\u2069\u200f\u061c\r\n\u0085ok`;
    nock(ORIGIN)
      .post('/oauth/access_token')
      .reply(400, { error: 'invalid_grant', error_description: described });
    const error = await rejectionOf(requestTokens(ENDPOINT, FORM, { timeout: 1000 }));
    expect(error.message).toContain('badERROR forged linexevilok');
    for (const ch of '\u2028\u2029\u202e\u2066\u2069\u200f\u061c\r\n\u0085')
      expect(error.message).not.toContain(ch);
  });

  it('does the same for the authorization page’s error_description', async () => {
    const { KudosAuthorizationError } = await import('../../src/index.js');
    const error = new KudosAuthorizationError('access_denied', { description: 'a\u2028b\u202ec\u2067d' });
    expect(error.description).toBe('abcd');
  });
});
