import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { KudosProfile } from '../../src/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { EXPRESS_FLAVORS, startApp, type TestApp } from '../helpers/express-app.js';
import { type FakeTokenServer, startTokenServer } from '../helpers/token-server.js';

/** Unhandled rejections seen while a test ran (each one would kill a process run with defaults). */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

describe.each(EXPRESS_FLAVORS)('a verify function that returns a promise (%s)', (flavor) => {
  let tokens: FakeTokenServer;
  let app: TestApp | undefined;
  beforeAll(async () => {
    tokens = await startTokenServer();
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    unhandled.length = 0;
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await tokens.close();
  });

  /** Starts the login and comes back to the callback with a code and the right state. */
  async function callback(verify: (a: string, r: string | undefined, p: KudosProfile) => Promise<unknown>) {
    app = await startApp(flavor, {
      strategy: { authURL: tokens.baseURL, baseURL: tokens.baseURL },
      verify: verify as never,
    });
    const client = new CookieClient();
    const start = locationOf(await client.get(`${app.url}/login`));
    const res = await client.get(`${app.url}/callback-raw?code=abc&state=${start.searchParams.get('state')}`);
    await new Promise((resolve) => setTimeout(resolve, 20)); // an unhandled rejection is reported a tick later
    return { client, res };
  }

  it('logs in the user an async verify resolves with (no done)', async () => {
    const { client, res } = await callback(async (_a, _r, profile) => ({ id: profile.id, via: 'promise' }));
    expect(res.status).toBe(302);
    expect(await (await client.get(`${app?.url}/me`)).json()).toEqual({
      id: 'alice-example',
      via: 'promise',
    });
    expect(unhandled).toEqual([]);
  });

  it('fails the login when it resolves false', async () => {
    const { res } = await callback(async () => false);
    expect(res.status).toBe(401);
    expect(unhandled).toEqual([]);
  });

  it('passes a rejection to the error handler (regression: an unhandled rejection killed the process)', async () => {
    const { res } = await callback(async () => {
      throw Object.assign(new Error('user store is down'), { status: 503, code: 'store_down' });
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'store_down', message: 'user store is down' });
    expect(unhandled).toEqual([]);
  });

  it('lets an async verify that calls done itself decide, once', async () => {
    const { client, res } = await callback((async (
      _a: string,
      _r: string | undefined,
      profile: KudosProfile,
      done: (e: unknown, u?: unknown) => void,
    ) => {
      done(null, { id: profile.id, via: 'done' });
      done(new Error('a second answer is ignored'));
    }) as never);
    expect(res.status).toBe(302);
    expect(await (await client.get(`${app?.url}/me`)).json()).toEqual({ id: 'alice-example', via: 'done' });
    expect(unhandled).toEqual([]);
  });
});
