import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { DEMO_USERS, type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endWithTestFile } from '../helpers/children.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { type FrontProxy, startFrontProxy } from '../helpers/front-proxy.js';
import { type RedisCluster, startRedisCluster } from '../helpers/redis-cluster.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { startWebhookSink } from '../helpers/webhook-sink.js';

const WEBHOOK_SECRET = 'instances-webhook-secret-0123456789';
const AGENT = 'kudos-example-agent';
const HOUR = 3600 * 1000;

interface Instance {
  child: ChildProcess;
  port: number;
  logs: string[];
}

/** Starts `node example/server.js` as its own process and waits for its URL. */
async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['example/server.js'], {
    env: { ...process.env, ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  endWithTestFile(child);
  const logs: string[] = [];
  let text = '';
  child.stdout?.on('data', (c: Buffer) => {
    text += c.toString();
    logs.push(...c.toString().split('\n').filter(Boolean));
  });
  child.stderr?.on('data', (c: Buffer) => logs.push(c.toString()));
  for (let waited = 0; !/Kudos example app: http:\/\/localhost:\d+/.test(text); waited += 50) {
    if (waited > 15_000 || child.exitCode !== null)
      throw new Error(`example did not start:\n${logs.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, port: Number(/localhost:(\d+)/.exec(text)?.[1]), logs };
}

/** Every key matching `pattern` on each `host:port`, sorted (redis-cli, as an operator would look). */
function keysAt(nodes: string[], pattern: string): string[] {
  return nodes
    .flatMap((node) => {
      const [host = '127.0.0.1', port = '6379'] = node.split(':');
      return execFileSync('redis-cli', ['-h', host, '-p', port, '--raw', 'KEYS', pattern], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter((key) => key !== '');
    })
    .sort();
}

/** The Redis the instances share: its environment for the example, and how to end it. */
interface SharedRedis {
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Two example instances behind one address on `shared`; `more` adds the tests of one topology. */
function instancesSuite(
  name: string,
  startShared: () => Promise<SharedRedis>,
  more?: (ctx: SuiteContext) => void,
) {
  describe(`two example-app processes behind one address, sharing ${name}`, () => {
    let shared: SharedRedis;
    let sessionsRedis: RedisServer;
    let kudos: KudosEmulator;
    let proxy: FrontProxy;
    let a: Instance;
    let b: Instance;
    const instances = () => [a, b];

    async function get(client: CookieClient, path: string, instance: number): Promise<Response> {
      return client.request(`${proxy.url}${path}`, { headers: { 'x-instance': String(instance) } });
    }

    async function post(client: CookieClient, path: string, form: Record<string, string>, instance: number) {
      return client.request(`${proxy.url}${path}`, {
        method: 'POST',
        headers: { 'x-instance': String(instance), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    }

    /** Starts a login on instance `on` and lands its callback on instance `back`. */
    async function logIn(client: CookieClient, on: number, back: number): Promise<Response> {
      const start = await get(client, '/auth/kudos', on);
      const answer = await passAuthorization(client, locationOf(start));
      const callback = locationOf(answer);
      expect(callback.origin).toBe(proxy.url);
      return get(client, `${callback.pathname}${callback.search}`, back);
    }

    async function csrfOf(client: CookieClient, instance: number): Promise<string> {
      const html = await (await get(client, '/profile', instance)).text();
      return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    }

    function deliver(port: number, body: string) {
      return fetch(`http://127.0.0.1:${port}/webhooks/kudos?token=${WEBHOOK_SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }).then(async (res) => ({ status: res.status, json: (await res.json()) as Record<string, unknown> }));
    }

    /** Rows of a transaction on instance A's payments page (signed-in users only): one client, signed in once. */
    let viewer: CookieClient | undefined;
    async function paymentRows(hash: string): Promise<number> {
      let page = viewer ? await get(viewer, '/payments', 0) : undefined;
      if (page?.status !== 200) {
        // Signed in again when the session is gone (a Redis that restarted without its data).
        viewer = new CookieClient();
        await logIn(viewer, 0, 0);
        page = await get(viewer, '/payments', 0);
      }
      const html = await page.text();
      expect(html).toContain('<h1>Your tips</h1>'); // alice's own payments page
      return html.split(hash.slice(0, 12)).length - 1;
    }

    beforeAll(async () => {
      shared = await startShared();
      // The sessions' own Redis, apart from the payments' (the README's set-up).
      sessionsRedis = await startRedisServer();
      kudos = await startKudosEmulator({
        clients: [
          {
            clientID: 'shop',
            clientSecret: 'shop-secret',
            name: 'Shop',
            redirectURIs: ['http://localhost/auth/kudos/callback'],
          },
        ],
        users: [...DEMO_USERS, { id: AGENT, password: 'agent-password' }],
        agents: [{ id: AGENT }],
        paymentDelayMs: 10,
        webhook: { attempts: 8, retryDelayMs: 250 },
      });
      proxy = await startFrontProxy();
      const env = {
        ...shared.env,
        REDIS_SESSIONS_URL: sessionsRedis.url,
        KUDOS_AUTH_URL: kudos.authURL,
        KUDOS_BASE_URL: kudos.baseURL,
        KUDOS_CLIENT_ID: 'shop',
        KUDOS_CLIENT_SECRET: 'shop-secret',
        CALLBACK_URL: `${proxy.url}/auth/kudos/callback`,
        SESSION_SECRET: 'shared-session-secret-for-both-x',
        KUDOS_WEBHOOK_SECRET: WEBHOOK_SECRET,
        KUDOS_AGENT_ID: AGENT,
      };
      [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
      proxy.targets = [a.port, b.port];
    }, 60_000);

    afterAll(async () => {
      for (const instance of instances()) instance?.child.kill('SIGTERM');
      await proxy?.close();
      await kudos?.close();
      await shared?.close();
      await sessionsRedis?.close();
    });

    it('a login started on instance A whose callback lands on instance B succeeds; logout on one logs out on both', async () => {
      const client = new CookieClient();
      const done = await logIn(client, 0, 1);
      expect(locationOf(done).pathname).toBe('/profile');
      for (const instance of [0, 1]) {
        const profile = await get(client, '/profile', instance);
        expect(profile.status).toBe(200);
        expect(await profile.text()).toContain('<span id="display-name">Alice Liddell</span>');
      }
      const out = await post(client, '/logout', { csrf: await csrfOf(client, 1) }, 0);
      expect(locationOf(out).pathname).toBe('/');
      expect(locationOf(await get(client, '/profile', 1)).pathname).toBe('/');
      expect(locationOf(await get(client, '/profile', 0)).pathname).toBe('/');
    });

    it('keeps sessions in their own Redis, none in the payments’ one, and 2,000 anonymous starts add no key', async () => {
      const client = new CookieClient();
      await logIn(client, 0, 1);
      const sessionsAt = [new URL(sessionsRedis.url).host];
      const paymentsAt = shared.env.REDIS_URL
        ? [new URL(shared.env.REDIS_URL).host]
        : (shared.env.REDIS_CLUSTER_NODES ?? '').split(',');
      expect(keysAt(sessionsAt, 'kudos-example:sess:*').length).toBeGreaterThan(0);
      expect(keysAt(paymentsAt, '*sess*')).toEqual([]);
      const before = [keysAt(sessionsAt, '*'), keysAt(paymentsAt, '*')];
      for (let batch = 0; batch < 20; batch++) {
        await Promise.all(
          Array.from({ length: 100 }, async (_, i) => {
            const res = await get(new CookieClient(), '/auth/kudos', i % 2);
            await res.arrayBuffer();
            if (res.status !== 302) throw new Error(`a start answered ${res.status}`);
          }),
        );
      }
      expect([keysAt(sessionsAt, '*'), keysAt(paymentsAt, '*')]).toEqual(before);
    });

    it('keeps at most 10 sessions of one account in the sessions’ Redis: a twelfth sign-in ends the oldest', async () => {
      const clients: CookieClient[] = [];
      for (let i = 0; i < 12; i++) {
        const client = new CookieClient();
        await logIn(client, i % 2, (i + 1) % 2);
        clients.push(client);
      }
      const sessionsAt = [new URL(sessionsRedis.url).host];
      const accounts = keysAt(sessionsAt, 'kudos-example:acct:*');
      expect(accounts.length).toBeGreaterThan(0);
      for (const instance of [0, 1]) {
        expect(locationOf(await get(clients[0] as CookieClient, '/profile', instance)).pathname).toBe('/');
        expect((await get(clients[11] as CookieClient, '/profile', instance)).status).toBe(200);
      }
    });

    it('the same notification delivered to both instances at once, 50 times, is handled exactly once', async () => {
      const sink = await startWebhookSink();
      try {
        kudos.setWebhook(AGENT, sink.url);
        const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: AGENT });
        await kudos.idle();
        const body = JSON.stringify(sink.received[0]?.body);
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) => deliver(instances()[i % 2]?.port ?? 0, body)),
        );
        // One processes it; the others answer 200 duplicate once it is done, or 409 (retry) while it runs.
        expect(answers.every((r) => r.status === 200 || r.status === 409)).toBe(true);
        expect(answers.filter((r) => r.status === 200 && r.json.duplicate !== true)).toHaveLength(1);
        expect(await paymentRows(tx.txHash)).toBe(1);
      } finally {
        await sink.close();
      }
    });

    it('100 concurrent API calls with an expired token, over both instances, make exactly one refresh', async () => {
      const client = new CookieClient();
      await logIn(client, 0, 0);
      const csrf = await csrfOf(client, 0);
      kudos.advanceClock(HOUR + 1000); // the access token is now expired for Kudos
      const before = kudos.counters.refreshGrants;
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => post(client, '/profile/api', { csrf }, i % 2)),
      );
      const pages = await Promise.all(answers.map((r) => r.text()));
      expect(answers.every((r) => r.status === 200)).toBe(true);
      expect(pages.every((p) => p.includes('id="api-result"'))).toBe(true);
      expect(kudos.counters.refreshGrants - before).toBe(1);
      const expiries = await Promise.all(
        [0, 1].map(
          async (i) => /id="expires-at">([^<]+)</.exec(await (await get(client, '/profile', i)).text())?.[1],
        ),
      );
      expect(expiries[0]).toBe(expiries[1]);
      expect(Date.parse(expiries[0] ?? '') - kudos.now()).toBeGreaterThan(HOUR - 60_000);
      const again = await post(client, '/profile/api', { csrf }, 1);
      expect(await again.text()).toContain('id="api-result"');
      expect(kudos.counters.refreshGrants - before).toBe(1);
    });

    more?.({ kudos: () => kudos, instances, get, logIn, deliver, paymentRows });
  });
}

/** What a topology's own tests use of the suite. */
interface SuiteContext {
  kudos: () => KudosEmulator;
  instances: () => Instance[];
  get: (client: CookieClient, path: string, instance: number) => Promise<Response>;
  logIn: (client: CookieClient, on: number, back: number) => Promise<Response>;
  deliver: (port: number, body: string) => Promise<{ status: number; json: Record<string, unknown> }>;
  paymentRows: (hash: string) => Promise<number>;
}

let server: RedisServer;
instancesSuite(
  'one Redis server (REDIS_URL)',
  async () => {
    server = await startRedisServer();
    return { env: { REDIS_URL: server.url }, close: () => server.close() };
  },
  ({ kudos: emulator, instances, get, logIn, deliver, paymentRows }) => {
    it('Redis stopped, then restarted: clear errors while down, no lost or doubled notifications, normal after', async () => {
      const kudos = emulator();
      const [a, b] = instances() as [Instance, Instance];
      const sink = await startWebhookSink();
      kudos.setWebhook(AGENT, sink.url);
      // A payment to the shop (bobby's wallet) naming no order: one exception row, once.
      const earlier = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: AGENT });
      await kudos.idle();
      const earlierBody = JSON.stringify(sink.received[0]?.body);
      await sink.close();
      expect((await deliver(a.port, earlierBody)).status).toBe(200);

      await server.stop();
      kudos.setWebhook(AGENT, `http://127.0.0.1:${b.port}/webhooks/kudos?token=${WEBHOOK_SECRET}`);
      const during = kudos.pay({ from: 'alice', to: 'bobby', amount: '3', via: AGENT });
      await expect
        .poll(() => kudos.deliveries.filter((d) => d.txHash === during.txHash).length, { timeout: 5000 })
        .toBeGreaterThan(0);
      const first = kudos.deliveries.find((d) => d.txHash === during.txHash);
      expect(first?.responseStatus).toBe(503);
      const refused = await deliver(a.port, earlierBody);
      expect(refused).toMatchObject({ status: 503, json: { code: 'store_unavailable' } });
      // A sign-in start stores nothing, so it still works; the login itself needs the sessions' Redis.
      const user = new CookieClient();
      const started = await get(user, '/auth/kudos', 0);
      expect(started.status).toBe(302);
      const back = locationOf(await passAuthorization(user, locationOf(started)));
      const login = await get(user, `${back.pathname}${back.search}`, 0);
      expect(login.status).toBe(503);
      expect(await login.text()).toContain('Our session storage is unavailable right now.');

      await server.start();
      await kudos.idle(); // the emulator keeps redelivering with backoff until an instance accepts
      const attempts = kudos.deliveries.filter((d) => d.txHash === during.txHash);
      expect(attempts.at(-1)?.responseStatus).toBe(200);
      expect(await paymentRows(during.txHash)).toBe(1);
      expect(await paymentRows(earlier.txHash)).toBe(1);
      expect((await deliver(a.port, earlierBody)).json.duplicate).toBe(true);
      expect(await paymentRows(earlier.txHash)).toBe(1);
      const client = new CookieClient();
      expect(locationOf(await logIn(client, 1, 0)).pathname).toBe('/profile');
      expect(a.logs.join('\n') + b.logs.join('\n')).toContain('redis unavailable');
    }, 60_000);
  },
);

instancesSuite('a Redis Cluster (REDIS_CLUSTER_NODES)', async () => {
  const cluster: RedisCluster = await startRedisCluster({ masters: 3, replicas: 0 });
  const nodes = cluster.seeds.map((s) => `${s.host}:${s.port}`).join(',');
  return { env: { REDIS_CLUSTER_NODES: nodes }, close: () => cluster.close() };
});
