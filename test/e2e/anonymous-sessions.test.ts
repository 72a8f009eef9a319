import type session from 'express-session';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from '../../example/start.js';
import { exampleEnv } from '../helpers/example-env.js';
import { compile, runSnippet } from '../helpers/snippets.js';

// No anonymous request saves a session: the README's quick start (its TypeScript file and its
// CommonJS twin, run as their own processes as a reader runs them) and the example app, each sent
// 300 of every request a visitor who is not signed in can make: the home page, a callback with a
// made-up state, a callback with ?error=access_denied, and the example's other pages. A session
// saved is a Set-Cookie of the session cookie (express-session sets it when it saves a new one),
// and for the example the writes its session store is asked for, counted.

const TIMES = 300;
const MADE_UP = 'M'.repeat(32);

/** Sends `times` GETs (or POSTs) of `path`, 50 at a time; answers every Set-Cookie seen. */
async function flood(base: string, path: string, method = 'GET', times = TIMES): Promise<string[]> {
  const seen: string[] = [];
  for (let at = 0; at < times; at += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, times - at) }, async () => {
        const res = await fetch(`${base}${path}`, {
          method,
          redirect: 'manual',
          ...(method === 'POST'
            ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'tx_hash=x&state=y' }
            : {}),
        });
        seen.push(...res.headers.getSetCookie());
        await res.arrayBuffer();
      }),
    );
  }
  return seen;
}

const ANONYMOUS_PATHS = [
  '/',
  `/auth/kudos/callback?code=planted&state=${MADE_UP}`,
  '/auth/kudos/callback?error=access_denied',
];

describe('the quick start saves no session for an anonymous visitor', () => {
  let kudos: KudosEmulator;
  let file: string;
  beforeAll(async () => {
    kudos = await startKudosEmulator({});
    file = compile('quickstart');
  });
  afterAll(() => kudos.close());

  const env = () => ({
    KUDOS_AUTH_URL: kudos.authURL,
    KUDOS_BASE_URL: kudos.baseURL,
    CALLBACK_URL: 'http://localhost:{PORT}/auth/kudos/callback',
  });

  for (const program of ['server.ts', 'server.cjs']) {
    it(`${program}: 300 of each anonymous request, no session cookie; a declined sign-in still tells why`, async () => {
      const shop = await runSnippet(program === 'server.ts' ? file : 'docs/snippets/quickstart.cjs', env());
      try {
        for (const path of ANONYMOUS_PATHS) {
          const cookies = await flood(shop.url, path);
          expect(
            cookies.filter((c) => c.startsWith('connect.sid=')),
            path,
          ).toEqual([]);
        }
        // The reason of a declined sign-in, shown from the URL's word.
        const declined = await fetch(`${shop.url}/auth/kudos/callback?error=access_denied`, {
          redirect: 'manual',
        });
        expect(declined.headers.get('location')).toBe('/?failed=declined');
        expect(await (await fetch(`${shop.url}/?failed=declined`)).text()).toContain(
          '<p id="failure" role="alert">You declined to sign in with Kudos.</p>',
        );
        expect(await (await fetch(`${shop.url}/?failed=constructor`)).text()).not.toContain('id="failure"');
      } finally {
        shop.child.kill('SIGTERM');
      }
    });

    it(`${program} does not start with NODE_ENV=production and no SESSION_SECRET, naming it`, async () => {
      const started = runSnippet(program === 'server.ts' ? file : 'docs/snippets/quickstart.cjs', {
        ...env(),
        NODE_ENV: 'production',
        SESSION_SECRET: '',
      });
      const error = await started.then(
        (shop) => {
          shop.child.kill('SIGTERM');
          return new Error('it started');
        },
        (e: unknown) => e as Error,
      );
      expect(error.message).toContain('(it exited)');
      expect(error.message).toContain('set SESSION_SECRET');
      expect(error.message).not.toMatch(/\n\s+at /); // no stack trace
    });
  }
});

describe('the example saves no session for an anonymous visitor', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  let writes = 0;
  beforeAll(async () => {
    example = await startExample(exampleEnv({ SESSION_SECRET: 'anonymous-sessions-test-secret-0123456789' }));
    const store = example.stores.session as session.Store;
    const set = store.set.bind(store);
    store.set = (sid, data, callback) => {
      writes++;
      set(sid, data, callback);
    };
  });
  afterAll(() => example.close());

  it('300 of each anonymous request (home, callbacks, every page that wants a user) write no session', async () => {
    const paths = [
      ...ANONYMOUS_PATHS,
      '/profile',
      '/payments',
      '/tip',
      '/tip?popup=1',
      '/tip/done?tx_hash=x&state=y',
    ];
    for (const path of paths) {
      const cookies = await flood(example.url, path);
      expect(
        cookies.filter((c) => c.startsWith('kudos-example.sid=')),
        path,
      ).toEqual([]);
    }
    const posted = await flood(example.url, '/tip/popup', 'POST');
    expect(posted.filter((c) => c.startsWith('kudos-example.sid='))).toEqual([]);
    expect(writes).toBe(0);
    // What they are told comes from the URL: the decline, and the page that wants a user.
    const declined = await fetch(`${example.url}/auth/kudos/callback?error=access_denied`, {
      redirect: 'manual',
    });
    expect(declined.headers.get('location')).toBe('/?notice=declined');
    expect(await (await fetch(`${example.url}/?notice=declined`)).text()).toContain(
      'You declined to sign in with Kudos. You can try again any time.',
    );
    const wanted = await fetch(`${example.url}/profile`, { redirect: 'manual' });
    expect(wanted.headers.get('location')).toBe('/?notice=login');
    expect(await (await fetch(`${example.url}/?notice=login`)).text()).toContain('Sign in to see that page.');
  });

  it('does not start with NODE_ENV=production and no SESSION_SECRET, naming it', async () => {
    await expect(startExample(exampleEnv({ NODE_ENV: 'production' }))).rejects.toThrow(
      /SESSION_SECRET is required when NODE_ENV=production/,
    );
  });
});
