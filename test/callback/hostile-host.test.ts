import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from '../../example/start.js';
import { KudosError } from '../../src/index.js';
import { exampleEnv } from '../helpers/example-env.js';
import { EXPRESS_FLAVORS, startApp, type TestApp } from '../helpers/express-app.js';
import { runStrategy, testStrategy } from '../helpers/run-strategy.js';
import { startTokenServer } from '../helpers/token-server.js';

/** Host values that make a relative callback URL unparsable (each crashed the process before). */
const HOSTILE_HOSTS = ['a b', '[', 'a:99999', '%', 'a|b'];

/** Sends a raw HTTP/1.1 request (fetch would refuse these headers) and returns the status line and body. */
function rawGet(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
    socket.end([`GET ${path} HTTP/1.1`, ...lines, 'Connection: close', '', ''].join('\r\n'));
  });
}

describe('a hostile Host header never throws out of authenticate()', () => {
  const strategy = testStrategy();

  it.each(HOSTILE_HOSTS)(
    'Host %j: error(invalid_callback_url, 400) at the start and at the callback',
    async (host) => {
      for (const url of ['/login', '/callback?code=the-code-123&state=the-state-456']) {
        const outcome = await runStrategy(strategy, { url, headers: { host } });
        expect(outcome.action).toBe('error');
        const error = (outcome as { error: KudosError }).error;
        expect(error).toBeInstanceOf(KudosError);
        expect(error).toMatchObject({ code: 'invalid_callback_url', status: 400 });
        const visible = `${error.message} ${JSON.stringify(error)}`;
        expect(visible).not.toContain('the-code-123');
        expect(visible).not.toContain('the-state-456');
      }
    },
  );

  it('also for X-Forwarded-Host when the proxy is trusted, and for a missing Host', async () => {
    const proxied = testStrategy({ proxy: true });
    const forwarded = await runStrategy(proxied, {
      url: '/login',
      headers: { host: 'ok.test', 'x-forwarded-host': 'a b' },
    });
    expect(forwarded).toMatchObject({ action: 'error', error: { code: 'invalid_callback_url' } });
    const missing = await runStrategy(strategy, { url: '/login', headers: {} });
    expect(missing).toMatchObject({ action: 'error', error: { code: 'invalid_callback_url' } });
  });

  it('takes the first of a 100,000-character X-Forwarded-Proto list as https (no regular expression)', async () => {
    const proxied = testStrategy({ proxy: true });
    const proto = `https${' '.repeat(100_000)},http`;
    const outcome = await runStrategy(proxied, {
      url: '/login',
      headers: { host: 'app.test', 'x-forwarded-proto': proto },
    });
    expect(outcome.action).toBe('redirect');
    const target = new URL((outcome as { url: string }).url);
    expect(target.searchParams.get('redirect_uri')).toBe('https://app.test/callback');
  });
});

describe.each(EXPRESS_FLAVORS)('hostile Host over real HTTP (%s)', (flavor) => {
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    const tokens = await startTokenServer();
    app = await startApp(flavor, { strategy: { authURL: tokens.baseURL, baseURL: tokens.baseURL } });
    port = Number(new URL(app.url).port);
    return () => tokens.close();
  });
  afterAll(() => app.close());

  it('answers 400 invalid_callback_url through the error handler and keeps serving', async () => {
    for (const host of HOSTILE_HOSTS) {
      const answer = await rawGet(port, '/login', { Host: host });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'invalid_callback_url', status: 400 });
    }
    expect((await fetch(`${app.url}/me`)).status).toBe(401); // still alive
  });
});

describe('the example app survives any Host', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  const logs: string[] = [];
  beforeAll(async () => {
    example = await startExample(exampleEnv({ SESSION_SECRET: 'hostile-host-test-secret-xxxxxxx' }), {
      log: (l) => logs.push(l),
    });
  });
  afterEach(() => {
    logs.length = 0;
  });
  afterAll(() => example.close());

  it.each(HOSTILE_HOSTS)(
    'Host %j: a readable 400 page at /auth/kudos and the callback, and the process lives on',
    async (host) => {
      const start = await rawGet(example.port, '/auth/kudos', { Host: host });
      expect(start.status).toBe(400);
      expect(start.body).toContain('invalid_callback_url');
      expect(start.body).not.toMatch(/at .*\.(js|ts):\d+/); // no stack trace
      const callback = await rawGet(example.port, '/auth/kudos/callback?code=secret-code-789&state=s', {
        Host: host,
      });
      expect([400, 403]).toContain(callback.status);
      expect(callback.body).not.toContain('secret-code-789');
      expect(logs.join('\n')).not.toContain('secret-code-789');
      expect((await fetch(`${example.url}/`)).status).toBe(200);
    },
  );
});
