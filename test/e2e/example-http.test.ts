import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLocalPath } from '../../example/app.js';
import { startExample } from '../../example/start.js';
import { endWithTestFile } from '../helpers/children.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { exampleEnv } from '../helpers/example-env.js';

describe('example app: what a security reviewer expects (real HTTP)', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  const logs: string[] = [];
  beforeAll(async () => {
    example = await startExample(exampleEnv({ SESSION_SECRET: 'http-test-session-secret-xxxxxxx' }), {
      log: (l) => logs.push(l),
    });
  });
  afterAll(() => example.close());

  async function login(client: CookieClient, start = '/auth/kudos'): Promise<Response> {
    const begin = await client.get(`${example.url}${start}`);
    const back = await passAuthorization(client, locationOf(begin));
    return client.get(locationOf(back));
  }

  function sessionCookie(res: Response): string | undefined {
    return res.headers.getSetCookie().find((c) => c.startsWith('kudos-example.sid='));
  }

  function stateCookie(res: Response): string | undefined {
    return res.headers.getSetCookie().find((c) => /^(__Host-)?kudos_oauth_state\./.test(c));
  }

  it('starts a sign-in with an HttpOnly, SameSite=Lax state cookie and no session; the session comes at login', async () => {
    const client = new CookieClient();
    const start = await client.get(`${example.url}/auth/kudos`);
    expect(sessionCookie(start)).toBeUndefined();
    const state = stateCookie(start);
    expect(state).toMatch(/HttpOnly/);
    expect(state).toMatch(/SameSite=Lax/);
    expect(state).not.toMatch(/Secure/); // plain http here; Secure when served over https
    const callback = await client.get(locationOf(await passAuthorization(client, locationOf(start))));
    expect(locationOf(callback).pathname).toBe('/profile');
    const session = sessionCookie(callback);
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(stateCookie(callback)).toMatch(/^kudos_oauth_state\.[A-Za-z0-9_-]{16}=; Max-Age=0/); // used once, cleared
  });

  it('marks the state cookie Secure behind an https proxy (TRUST_PROXY=1)', async () => {
    const proxied = await startExample(
      exampleEnv({
        SESSION_SECRET: 'proxy-test-secret-value-xxxxxxxx',
        TRUST_PROXY: '1',
      }),
    );
    try {
      const res = await fetch(`${proxied.url}/auth/kudos`, {
        headers: { 'x-forwarded-proto': 'https' },
        redirect: 'manual',
      });
      expect(stateCookie(res)).toMatch(
        /^__Host-kudos_oauth_state\.[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
      );
      expect(locationOf(res).searchParams.get('redirect_uri')).toBe(
        `https://localhost:${proxied.port}/auth/kudos/callback`,
      );
    } finally {
      await proxied.close();
    }
  });

  it('serves its icon: /favicon.ico is an SVG, not a 404 in the log', async () => {
    const res = await fetch(`${example.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await res.text()).toMatch(/^<svg /);
    expect(logs.some((l) => l.includes('favicon'))).toBe(false);
    expect(await (await fetch(example.url)).text()).toContain('<link rel="icon" href="/favicon.ico"');
  });

  it('logs out by POST with the form token only', async () => {
    const client = new CookieClient();
    await login(client);
    expect((await client.get(`${example.url}/logout`)).status).toBe(404);
    expect((await client.postForm(`${example.url}/logout`, { csrf: 'forged' })).status).toBe(403);
    const profile = await (await client.get(`${example.url}/profile`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(profile)?.[1] ?? '';
    const out = await client.postForm(`${example.url}/logout`, { csrf });
    expect(locationOf(out).pathname).toBe('/');
    expect(locationOf(await client.get(`${example.url}/profile`)).pathname).toBe('/');
  });

  it('returns to a local path after login, and never to another site', async () => {
    const client = new CookieClient();
    expect(locationOf(await login(client, '/auth/kudos?returnTo=%2Fpayments')).pathname).toBe('/payments');
    for (const target of ['//evil.example/x', 'https://evil.example', '/\\evil.example', '/ok path']) {
      const other = new CookieClient();
      const res = await login(other, `/auth/kudos?returnTo=${encodeURIComponent(target)}`);
      expect(locationOf(res).toString()).toBe('http://localhost/profile');
    }
    expect(isLocalPath('/profile?tab=1')).toBe(true);
    expect(isLocalPath(['/a'])).toBe(false);
  });

  it('shows a readable error page, never a stack trace, for failures other than declining', async () => {
    const client = new CookieClient();
    await client.get(`${example.url}/auth/kudos`);
    const forged = await client.get(`${example.url}/auth/kudos/callback?code=x&state=forged`);
    expect(forged.status).toBe(403);
    const forgedPage = await forged.text();
    // A state of no sign-in of this browser: nothing of it to verify (and the sign-in under way is untouched).
    expect(forgedPage).toContain('Unable to verify authorization request state.');
    const serverError = await client.get(`${example.url}/auth/kudos/callback?error=server_error`);
    expect(serverError.status).toBe(502);
    const page = await serverError.text();
    expect(page).toContain('Signing in with Kudos did not work (server_error)');
    for (const html of [forgedPage, page]) expect(html).not.toMatch(/\n\s+at |node_modules/);
    const missing = await client.get(`${example.url}/nowhere`);
    expect(missing.status).toBe(404);
  });

  it('keeps secrets out of its logs', async () => {
    const client = new CookieClient();
    await login(client);
    const text = logs.join('\n');
    for (const secret of [
      example.config.clientSecret,
      example.config.webhookSecret,
      example.config.sessionSecret,
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('answers /healthz: 200 with what waits unprocessed, when a notification last came, and the store answering', async () => {
    const res = await fetch(`${example.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      unprocessed: 0,
      oldestUnprocessedMs: null,
      lastNotificationAt: null,
      exceptions: 0,
      oldestExceptionMs: null,
      storeOk: true,
      storeError: null,
      lookupOk: true,
      lookupError: null,
      recoveredFromChain: 0,
      chainScanOk: true,
      chainScanError: null,
      chainUndecided: 0,
    });
  });

  it('refuses a webhook delivery without the secret', async () => {
    const res = await fetch(`${example.url}/webhooks/kudos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
  });
});

describe('example server entry point', () => {
  it('serves on http://localhost:3000 by default and prints the URL and the demo credentials', async () => {
    const child = spawn(process.execPath, ['example/server.js'], {
      env: {
        ...process.env,
        PORT: undefined,
        SESSION_SECRET: undefined,
        // As a user's shell has it: without the runner's --disable-warning.
        NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replace('--disable-warning=ExperimentalWarning', ''),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    endWithTestFile(child);
    try {
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
      });
      await expect.poll(() => out, { timeout: 15_000 }).toContain('Demo users:');
      // Quiet about node:sqlite's ExperimentalWarning (the example's payments use it on Node 22.13+).
      expect(err).not.toContain('ExperimentalWarning');
      expect(out).toContain('Kudos example app: http://localhost:3000');
      expect(out).toContain('alice / wonderland');
      const home = await fetch('http://localhost:3000/');
      expect(home.status).toBe(200);
      expect(await home.text()).toContain('Sign in with Kudos');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
