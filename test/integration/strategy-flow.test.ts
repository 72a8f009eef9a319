import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KudosVerifyWithRequest } from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { type AppOptions, EXPRESS_FLAVORS, startApp, type TestApp } from '../helpers/express-app.js';
import {
  expectedProfile,
  type FakeTokenServer,
  startTokenServer,
  tokenResponse,
} from '../helpers/token-server.js';

const AUTH_URL = 'https://kudos.example';

describe.each(EXPRESS_FLAVORS)('KudosStrategy login flow under %s', (flavor) => {
  let tokens: FakeTokenServer;
  let app: TestApp;
  let client: CookieClient;

  async function start(strategy: AppOptions['strategy'] = {}, verify?: AppOptions['verify']): Promise<void> {
    app = await startApp(flavor, {
      strategy: { authURL: AUTH_URL, baseURL: tokens.baseURL, ...strategy },
      verify,
    });
  }

  /** Starts a login and returns the state the app stored in its session. */
  async function begin(): Promise<string> {
    const res = await client.get(`${app.url}/login`);
    expect(res.status).toBe(302);
    const state = locationOf(res).searchParams.get('state');
    expect(state).toBeTruthy();
    return state as string;
  }

  async function errorBody(res: Response): Promise<Record<string, unknown>> {
    expect(res.headers.get('content-type')).toMatch(/json/);
    return (await res.json()) as Record<string, unknown>;
  }

  beforeEach(async () => {
    tokens = await startTokenServer();
    client = new CookieClient();
  });
  afterEach(async () => {
    await app?.close();
    await tokens.close();
  });

  it('1. redirects to {authURL}/in/oauth/ with client_id, scope, redirect_uri and state', async () => {
    await start({ scope: ['profile', 'email'] });
    const res = await client.get(`${app.url}/login`);
    expect(res.status).toBe(302);
    const target = locationOf(res);
    expect(`${target.origin}${target.pathname}`).toBe(`${AUTH_URL}/in/oauth/`);
    expect(target.searchParams.get('client_id')).toBe('demo-client');
    expect(target.searchParams.get('scope')).toBe('profile email');
    expect(target.searchParams.get('redirect_uri')).toBe(`${app.url}/callback`);
    expect(target.searchParams.get('state')).toMatch(/^\S{16,}$/);
  });

  it('1. requests the default scope "profile" when none is configured', async () => {
    await start();
    const target = locationOf(await client.get(`${app.url}/login`));
    expect(target.searchParams.get('scope')).toBe('profile');
  });

  it('2. exchanges the code exactly as docs/kudos-service.md#token-exchange: POST, form body, client credentials, redirect_uri', async () => {
    await start();
    const state = await begin();
    await client.get(`${app.url}/callback?code=the-code&state=${state}`);
    expect(tokens.requests).toHaveLength(1);
    const [request] = tokens.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/oauth/access_token');
    expect(request?.contentType).toBe('application/x-www-form-urlencoded');
    expect(request?.form).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: `${app.url}/callback`,
      client_id: 'demo-client',
      client_secret: 'demo-secret',
    });
  });

  it('3. builds the profile from the token response and logs the user in with a session', async () => {
    await start();
    const state = await begin();
    const res = await client.get(`${app.url}/callback?code=c1&state=${state}`);
    expect(res.status).toBe(302);
    expect(locationOf(res).pathname).toBe('/me');
    const [call] = app.calls;
    const [accessToken, refreshToken, params, profile] = call?.args ?? [];
    const sent = tokenResponse();
    expect(accessToken).toBe(sent.access_token);
    expect(refreshToken).toBe(sent.refresh_token);
    expect(params).toEqual({ ...sent, expires_in: 3600 });
    expect(profile).toEqual(expectedProfile(sent));
    const me = await client.get(`${app.url}/me`);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ id: 'alice-example', displayName: 'Alice Example' });
  });

  it('3. calls a verify function of arity 6 with the request when passReqToCallback is set', async () => {
    const seen: unknown[] = [];
    await start({ passReqToCallback: true }, ((req, _at, _rt, params, profile, done) => {
      seen.push((req as { url?: string }).url, (params as { expires_in: number }).expires_in, profile.id);
      done(null, { id: profile.id });
    }) as AppOptions['verify']);
    const state = await begin();
    await client.get(`${app.url}/callback?code=c1&state=${state}`);
    expect(seen).toEqual([`/callback?code=c1&state=${state}`, 3600, 'alice-example']);
  });

  it('3. calls a verify function of arity 5 with the request when passReqToCallback is set', async () => {
    const seen: unknown[] = [];
    const verify: KudosVerifyWithRequest = (req, accessToken, _rt, profile, done) => {
      seen.push(typeof req.get, accessToken, profile.displayName);
      done(null, { id: profile.id });
    };
    await start({ passReqToCallback: true }, verify);
    const state = await begin();
    await client.get(`${app.url}/callback?code=c1&state=${state}`);
    expect(seen).toEqual(['function', tokenResponse().access_token, 'Alice Example']);
  });

  it('4. refuses a token response without "user": nobody is logged in', async () => {
    await start();
    const { user: _omitted, ...withoutUser } = tokenResponse();
    tokens.answer = { kind: 'json', body: withoutUser };
    const state = await begin();
    const res = await client.get(`${app.url}/callback?code=c1&state=${state}`);
    expect(res.status).toBe(502);
    expect(await errorBody(res)).toMatchObject({
      name: 'KudosTokenError',
      code: 'invalid_token_response',
      message: 'token response "user" must be a non-empty string',
    });
    expect(app.calls).toHaveLength(0);
    expect((await client.get(`${app.url}/me`)).status).toBe(401);
  });

  it('5. treats error=denied as a failure: failureRedirect with a readable message', async () => {
    await start();
    const state = await begin();
    const res = await client.get(`${app.url}/callback?error=denied&state=${state}`);
    expect(res.status).toBe(302);
    expect(locationOf(res).pathname).toBe('/failed');
    const failed = await client.get(`${app.url}/failed`);
    expect(await failed.json()).toEqual({ messages: ['You declined to sign in with Kudos.'] });
    expect(tokens.requests).toHaveLength(0);
  });

  it('5. answers 403 for error=denied and access_denied when no failureRedirect is set', async () => {
    await start();
    for (const error of ['denied', 'access_denied']) {
      const res = await client.get(`${app.url}/callback-raw?error=${error}`);
      expect(res.status).toBe(403);
    }
  });

  it('5. passes other authorization errors to the error handler with their code and description', async () => {
    await start();
    const res = await client.get(`${app.url}/callback?error=invalid_scope&error_description=unknown%20scope`);
    expect(res.status).toBe(400);
    expect(await errorBody(res)).toMatchObject({
      name: 'KudosAuthorizationError',
      code: 'invalid_scope',
      message: 'Kudos authorization failed with error "invalid_scope": unknown scope',
    });
  });

  it.each(['code', 'auth_code', 'authorization_code'])(
    '6. accepts the code as "%s" in the query',
    async (name) => {
      await start();
      const state = await begin();
      const res = await client.get(`${app.url}/callback?${name}=code-${name}&state=${state}`);
      expect(locationOf(res).pathname).toBe('/me');
      expect(tokens.requests[0]?.form.code).toBe(`code-${name}`);
    },
  );

  it.each(['code', 'auth_code', 'authorization_code'])(
    '6. accepts the code as "%s" in a form body',
    async (name) => {
      await start();
      const state = await begin();
      const res = await client.postForm(`${app.url}/callback`, { [name]: 'posted-code', state });
      expect(locationOf(res).pathname).toBe('/me');
      expect(tokens.requests[0]?.form.code).toBe('posted-code');
    },
  );

  it.each([
    ['code=a&code=b', 'Authorization code "code" was given more than once'],
    ['auth_code=a&auth_code=a', 'Authorization code "auth_code" was given more than once'],
    ['code=a&auth_code=b', 'Authorization code given under two names with different values'],
    ['code=', 'Authorization code is empty or too long'],
    ['code[]=x', 'Authorization code "code" must be a single string'],
    ['code[a]=x', 'Authorization code "code" must be a single string'],
    ['code=x&state[]=y', 'Parameter "state" must be a single string'],
    ['error=access_denied&error=access_denied', 'Parameter "error" was given more than once'],
    ['error=server_error&error=x', 'Parameter "error" was given more than once'],
    ['error=', 'Parameter "error" is empty'],
    ['error_description=x', 'Callback has no authorization code'],
  ])(
    '6. answers %s with KudosError invalid_request (400) and sends nothing to the token endpoint',
    async (query, message) => {
      await start();
      const state = await begin();
      for (const path of ['/callback-raw', '/callback']) {
        const res = await client.get(`${app.url}${path}?${query}&state=${state}`);
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({
          name: 'KudosError',
          code: 'invalid_request',
          status: 400,
          message,
        });
      }
      expect(tokens.requests).toHaveLength(0);
    },
  );

  it('6. answers invalid_request for a code sent both in the query and the form body', async () => {
    await start();
    const state = await begin();
    const res = await client.postForm(`${app.url}/callback?code=a`, { auth_code: 'b', state });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_request' });
    const same = await client.postForm(`${app.url}/callback?code=a`, { code: 'a', state });
    expect(await same.json()).toMatchObject({
      code: 'invalid_request',
      message: 'Authorization code "code" was given more than once',
    });
    expect(tokens.requests).toHaveLength(0);
  });

  it('6. does not loop back to Kudos when a callback carries a state but no code', async () => {
    await start();
    const state = await begin();
    const res = await client.get(`${app.url}/callback-raw?state=${state}`);
    expect(res.status).toBe(400);
  });

  it('7. fails a missing state with 403 before any token request', async () => {
    await start();
    await begin();
    const res = await client.get(`${app.url}/callback-raw?code=c1`);
    expect(res.status).toBe(403);
    expect(tokens.requests).toHaveLength(0);
  });

  it('7. fails a wrong state with 403 and the message of the state store', async () => {
    await start();
    await begin();
    const res = await client.get(`${app.url}/callback?code=c1&state=forged`);
    expect(locationOf(res).pathname).toBe('/failed');
    expect(await (await client.get(`${app.url}/failed`)).json()).toEqual({
      messages: ['Invalid authorization request state.'],
    });
    expect(tokens.requests).toHaveLength(0);
  });

  it('7. fails a replayed callback', async () => {
    await start();
    const state = await begin();
    expect(locationOf(await client.get(`${app.url}/callback?code=c1&state=${state}`)).pathname).toBe('/me');
    const replay = await client.get(`${app.url}/callback-raw?code=c1&state=${state}`);
    expect(replay.status).toBe(403);
    expect(tokens.requests).toHaveLength(1);
  });

  it('8. answers 504 with code "timeout" when the token endpoint stalls, and destroys the socket', async () => {
    await start({ timeoutMs: 300 });
    tokens.answer = { kind: 'stall' };
    const state = await begin();
    const started = process.hrtime.bigint();
    const res = await client.get(`${app.url}/callback?code=c1&state=${state}`);
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(res.status).toBe(504);
    expect(await errorBody(res)).toMatchObject({ code: 'timeout', status: 504, name: 'KudosTokenError' });
    // Bounded by the 300 ms timeout, not left hanging (the stall never ends): a margin a loaded
    // machine keeps, far below the test's own limit.
    expect(elapsedMs).toBeLessThan(10_000);
    await expect.poll(() => tokens.closedSockets()).toBeGreaterThanOrEqual(1);
  });

  it('9. reports the plain-text error code of the service with status 502 and the upstream status', async () => {
    await start();
    tokens.answer = { kind: 'text', status: 400, body: 'INVALID_CLIENT_CRED' };
    const state = await begin();
    const res = await client.get(`${app.url}/callback?code=secret-code&state=${state}`);
    expect(res.status).toBe(502);
    const body = await errorBody(res);
    expect(body).toMatchObject({ code: 'INVALID_CLIENT_CRED', status: 502, httpStatus: 400 });
    expect(JSON.stringify(body)).not.toMatch(/secret-code|demo-secret/);
  });

  it('9. reports a JSON error code (RFC 6749 section 5.2) the same way', async () => {
    await start();
    tokens.answer = {
      kind: 'json',
      status: 401,
      body: { error: 'invalid_grant', error_description: 'expired' },
    };
    const state = await begin();
    const res = await client.get(`${app.url}/callback?code=c1&state=${state}`);
    expect(await errorBody(res)).toMatchObject({
      code: 'invalid_grant',
      httpStatus: 401,
      message: 'Kudos token endpoint answered HTTP 401 invalid_grant: expired',
    });
  });

  it('9. reports a 2xx answer that is not JSON as invalid_token_response', async () => {
    await start();
    tokens.answer = { kind: 'text', status: 200, body: '<html>maintenance</html>', contentType: 'text/html' };
    const state = await begin();
    const res = await client.get(`${app.url}/callback?code=c1&state=${state}`);
    expect(res.status).toBe(502);
    expect(await errorBody(res)).toMatchObject({ code: 'invalid_token_response', httpStatus: 200 });
  });
});
