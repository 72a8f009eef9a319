import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS_SESSION_MS, BoundedMemoryStore } from '../../example/session-store.js';
import { startExample } from '../../example/start.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { exampleEnv } from '../helpers/example-env.js';

type Data = Parameters<BoundedMemoryStore['set']>[1];

function data(expiresInMs: number, user?: string, now = 0): Data {
  return {
    cookie: { expires: new Date(now + expiresInMs), originalMaxAge: expiresInMs },
    ...(user ? { passport: { user } } : {}),
  } as unknown as Data;
}

function read(store: BoundedMemoryStore, sid: string): Promise<unknown> {
  return new Promise((resolve) => store.get(sid, (_err: unknown, value: unknown) => resolve(value)));
}

describe('example session store: anonymous sessions are short-lived and bounded (regression: 24 h each)', () => {
  it('drops a session without a signed-in user after ANONYMOUS_SESSION_MS, whatever its cookie says', async () => {
    let now = 0;
    const store = new BoundedMemoryStore({ now: () => now });
    store.set('anon', data(86_400_000));
    store.set('user', data(86_400_000, 'alice'));
    now = ANONYMOUS_SESSION_MS - 1;
    expect(await read(store, 'anon')).not.toBeNull();
    now = ANONYMOUS_SESSION_MS;
    expect(await read(store, 'anon')).toBeNull();
    expect(await read(store, 'user')).toMatchObject({ passport: { user: 'alice' } });
    now = 86_400_000;
    expect(await read(store, 'user')).toBeNull();
  });

  it('keeps at most maxAnonymous anonymous sessions, the oldest going first, and never drops a signed-in one for them', async () => {
    const store = new BoundedMemoryStore({ maxAnonymous: 100 });
    store.set('user', data(86_400_000, 'alice', Date.now()));
    for (let i = 0; i < 200_000; i++) store.set(`anon-${i}`, data(86_400_000, undefined, Date.now()));
    expect(store.counts).toEqual({ anonymous: 100, signedIn: 1 });
    expect(await read(store, 'anon-0')).toBeNull();
    expect(await read(store, 'anon-199999')).not.toBeNull();
    expect(await read(store, 'user')).not.toBeNull();
  });

  it('keeps at most 10 sessions of one account (its oldest go first) and maxSignedIn in all', async () => {
    const store = new BoundedMemoryStore({ maxSignedIn: 50 });
    for (let i = 0; i < 1500; i++) store.set(`alice-${i}`, data(86_400_000, 'alice', Date.now()));
    expect(store.counts.signedIn).toBe(10);
    expect(await read(store, 'alice-1489')).toBeNull();
    expect(await read(store, 'alice-1490')).not.toBeNull();
    for (let i = 0; i < 100; i++) store.set(`user-${i}`, data(86_400_000, `user-${i}`, Date.now()));
    expect(store.counts.signedIn).toBe(50);
    expect(await read(store, 'user-99')).not.toBeNull();
    expect(await read(store, 'alice-1499')).toBeNull(); // the least recently saved went first
  });
});

describe('example app session lifetimes over real HTTP', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  beforeAll(async () => {
    example = await startExample(exampleEnv({ SESSION_SECRET: 'session-lifetime-test-secret-xxx' }));
  });
  afterAll(() => example.close());

  function cookieExpiry(res: Response): number {
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('kudos-example.sid='));
    const expires = /Expires=([^;]+)/.exec(cookie ?? '')?.[1];
    return expires ? new Date(expires).getTime() - Date.now() : Number.NaN;
  }

  it('starts a sign-in with only the state cookie (10 minutes), and gives the signed-in session its day', async () => {
    const client = new CookieClient();
    const start = await client.get(`${example.url}/auth/kudos`);
    const set = start.headers.getSetCookie();
    expect(set.some((c) => c.startsWith('kudos-example.sid='))).toBe(false);
    expect(set).toEqual([
      expect.stringMatching(
        /^kudos_oauth_state\.[A-Za-z0-9_-]{16}=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/,
      ),
    ]);
    const back = await passAuthorization(client, locationOf(start));
    const callback = await client.get(locationOf(back));
    expect(locationOf(callback).pathname).toBe('/profile');
    expect(cookieExpiry(callback)).toBeGreaterThan(23 * 3600 * 1000);
  });

  it('one account signing in 15 times keeps 10 sessions, and every session uses its one open tip order', async () => {
    const store = example.stores.session as BoundedMemoryStore;
    const before = store.counts.signedIn;
    const clients: CookieClient[] = [];
    const links = new Set<string>();
    for (let i = 0; i < 15; i++) {
      const client = new CookieClient();
      const back = await passAuthorization(
        client,
        locationOf(await client.get(`${example.url}/auth/kudos`)),
        {
          username: 'bobby',
          password: 'builder',
        },
      );
      await client.get(locationOf(back));
      clients.push(client);
    }
    expect(store.counts.signedIn - before).toBeLessThanOrEqual(10);
    // The oldest five were ended: their profile sends them to sign in again.
    expect(locationOf((await clients[0]?.get(`${example.url}/profile`)) as Response).pathname).toBe('/');
    expect((await clients[14]?.get(`${example.url}/profile`))?.status).toBe(200);
    // alice, from three sessions: one tip order.
    for (let i = 0; i < 3; i++) {
      const alice = new CookieClient();
      const back = await passAuthorization(alice, locationOf(await alice.get(`${example.url}/auth/kudos`)));
      await alice.get(locationOf(back));
      const link = locationOf(await alice.get(`${example.url}/tip`));
      links.add(link.searchParams.get('state') ?? '');
    }
    expect(links.size).toBe(1);
  });

  it('keeps nothing for 2,000 anonymous sign-in starts, and a user who was on the consent page signs in', async () => {
    const store = example.stores.session as BoundedMemoryStore;
    expect(store).toBeInstanceOf(BoundedMemoryStore);
    const before = store.counts;
    // Alice opens the consent page before the flood, and accepts after it.
    const alice = new CookieClient();
    const consent = locationOf(await alice.get(`${example.url}/auth/kudos?returnTo=%2Fpayments`));
    // A count that proves the property (each start writes nothing), not a throughput: the flood's speed
    // is a benchmark's business, and a busy machine takes longer.
    for (let batch = 0; batch < 40; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const res = await fetch(`${example.url}/auth/kudos`, { redirect: 'manual' });
          await res.arrayBuffer();
          if (res.status !== 302) throw new Error(`a start answered ${res.status}`);
        }),
      );
    }
    expect(store.counts).toEqual(before);
    const back = await passAuthorization(alice, consent);
    const landed = await alice.get(locationOf(back));
    expect(locationOf(landed).pathname).toBe('/payments'); // the returnTo rode in the state cookie
    expect(store.counts).toEqual({ anonymous: before.anonymous, signedIn: before.signedIn + 1 });
  });
});
