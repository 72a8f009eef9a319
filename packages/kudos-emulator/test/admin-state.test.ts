import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { exchangeCode, PAYMENT_USERS, postTokenForm } from '../../../test/helpers/emulator-user.js';
import { AdminSessions } from '../src/admin-sessions.js';
import { parseDuration } from '../src/model/duration.js';
import { AdminError, checkAccess } from '../src/server/admin-access.js';

const CLIENT = { clientID: 'shop', clientSecret: 'shop-secret', redirectURIs: ['https://shop.example/cb'] };
const SHOP_CREDENTIALS = {
  clientID: 'shop',
  clientSecret: 'shop-secret',
  redirectURI: 'https://shop.example/cb',
};

describe('the admin API (/_emulator/)', () => {
  let kudos: KudosEmulator | undefined;
  afterEach(async () => {
    await kudos?.close();
    kudos = undefined;
  });

  async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${kudos?.authURL}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it.each([
    ['/_emulator/payments', { amount: '1' }, 'to'],
    ['/_emulator/payments', { to: 'bobby', amount: 5 }, 'amount'],
    ['/_emulator/payments', { to: 'bobby', amount: '1', status: 'maybe' }, 'status'],
    ['/_emulator/payments', { to: 'bobby', amount: '1', via: 7 }, 'via'],
    ['/_emulator/clock/advance', { advance: 'later' }, 'advance'],
    ['/_emulator/clock/advance', {}, 'advance'],
    ['/_emulator/users', { id: 'new-user' }, 'password'],
    ['/_emulator/clients', { clientID: 'c', clientSecret: 's', redirectURI: 'nope' }, 'redirectURI'],
    [
      '/_emulator/clients',
      { clientID: 'c', clientSecret: 's', redirectURI: 'javascript:alert(1)' },
      'redirectURI',
    ],
  ])('POST %s %j: 400 naming "%s"', async (path, body, field) => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS });
    const answer = await post(path, body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_field', field });
    expect(String(answer.json.error)).toContain(`"${field}"`);
  });

  it('a client that exists is 409 already_exists unless update: true, like users and agents', async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, clients: [CLIENT] });
    const replace = { clientID: 'shop', clientSecret: 'new-secret', redirectURI: 'https://shop.example/new' };
    const refused = await post('/_emulator/clients', replace);
    expect(refused).toMatchObject({ status: 409, json: { code: 'already_exists', field: 'clientID' } });
    // The old secret still works: nothing was replaced.
    const token = (secret: string) =>
      postTokenForm(kudos?.tokenURL ?? '', {
        client_id: 'shop',
        client_secret: secret,
        grant_type: 'authorization_code',
        code: 'x',
      }).then((r) => r.text());
    expect(await token('shop-secret')).toBe('INVALID_GRANT');
    expect((await post('/_emulator/clients', { ...replace, update: true })).status).toBe(200);
    expect(await token('shop-secret')).toBe('INVALID_CLIENT_CRED');
    expect(await token('new-secret')).toBe('INVALID_GRANT');
    expect((await post('/_emulator/clients', { ...replace, clientID: 'another' })).status).toBe(201);
  });

  it('answers 400 for a body that is not a JSON object, and 404 for an unknown delivery', async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS });
    expect((await post('/_emulator/users', '{"id":')).json).toMatchObject({ code: 'invalid_json' });
    expect((await post('/_emulator/users', '[1]')).json).toMatchObject({ code: 'invalid_json' });
    for (const id of ['7', '0', '9007199254740993']) {
      expect((await post(`/_emulator/deliveries/${id}/resend`, {})).status).toBe(404);
    }
  });

  it('shows the 50 newest transactions, newest first, however many there are', async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS });
    const hashes: string[] = [];
    for (let i = 0; i < 60; i++) hashes.push(kudos.pay({ from: 'alice', to: 'bobby', amount: '1' }).txHash);
    const state = (await (await fetch(`${kudos.authURL}/_emulator/state`)).json()) as {
      transactions: Array<{ txHash: string }>;
    };
    expect(state.transactions.map((t) => t.txHash)).toEqual(hashes.slice(-50).reverse());
  });

  it('refuses a browser form from another site (Origin) for resend', async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: 'http://127.0.0.1:9/h' }],
      webhook: { attempts: 1 },
    });
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const id = kudos.deliveries[0]?.id ?? 0;
    expect(
      (await post(`/_emulator/deliveries/${id}/resend`, {}, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect((await post(`/_emulator/deliveries/${id}/resend`, {}, { origin: kudos.authURL })).status).toBe(
      202,
    );
  });

  it('answers only a loopback address without a token, and only the token with one', () => {
    const ctx = (remoteAddress: string, authorization?: string) =>
      ({ req: { socket: { remoteAddress }, headers: authorization ? { authorization } : {} } }) as never;
    const open = { options: { adminToken: undefined } } as never;
    for (const address of ['127.0.0.1', '127.8.9.1', '::1', '::ffff:127.0.0.1'])
      expect(() => checkAccess(open, ctx(address))).not.toThrow();
    for (const address of ['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.5', '2001:db8::1']) {
      expect(() => checkAccess(open, ctx(address))).toThrow(AdminError);
    }
    const guarded = {
      options: { adminToken: 'the-token-0123456789' },
      adminSessions: new AdminSessions(),
    } as never;
    expect(() => checkAccess(guarded, ctx('127.0.0.1'))).toThrow(AdminError);
    expect(() => checkAccess(guarded, ctx('127.0.0.1', 'Bearer wrong'))).toThrow(AdminError);
    expect(() => checkAccess(guarded, ctx('10.0.0.5', 'Bearer the-token-0123456789'))).not.toThrow();
  });

  it('reads durations as the CLI takes them', () => {
    expect([
      parseDuration('90s'),
      parseDuration('61m'),
      parseDuration('1h'),
      parseDuration('1h30m'),
      parseDuration('250'),
    ]).toEqual([90_000, 3_660_000, 3_600_000, 5_400_000, 250]);
    for (const bad of ['', 's', '1x', '-5s', '1.5h', 'h1', '9'.repeat(100)])
      expect(parseDuration(bad)).toBeUndefined();
  });
});

describe('--state FILE (option state)', () => {
  let kudos: KudosEmulator | undefined;
  afterEach(async () => {
    await kudos?.close();
    kudos = undefined;
  });
  const folder = () => mkdtempSync(join(tmpdir(), 'kudos-state-'));

  it('keeps users, clients, agents, grants, refresh tokens, transactions and the clock across a restart', async () => {
    const file = join(folder(), 'state.json');
    kudos = await startKudosEmulator({
      state: file,
      clients: [CLIENT],
      users: PAYMENT_USERS,
      paymentDelayMs: 5,
    });
    kudos.addUser({ id: 'carol-new', password: 'carol-pass' });
    kudos.addClient({
      clientID: 'later',
      clientSecret: 'later-secret',
      redirectURIs: ['https://later.example/cb'],
    });
    kudos.setWebhook('shop-agent', 'http://127.0.0.1:9/hook');
    const { code } = kudos.authorize({ clientID: 'shop', user: 'alice' });
    const tokens = await exchangeCode(kudos.tokenURL, { ...SHOP_CREDENTIALS, code });
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2' });
    await tx.settled;
    kudos.advanceClock(30 * 60_000);
    const now = kudos.now();
    await kudos.close();
    kudos = undefined;
    expect(readdirSync(join(file, '..')).filter((f) => f.endsWith('.tmp'))).toEqual([]); // written atomically

    kudos = await startKudosEmulator({ state: file, clients: [CLIENT], users: PAYMENT_USERS });
    expect(kudos.now()).toBeGreaterThanOrEqual(now);
    expect(kudos.now() - Date.now()).toBeGreaterThan(29 * 60_000);
    const state = (await (await fetch(`${kudos.authURL}/_emulator/state`)).json()) as Record<
      string,
      Array<Record<string, unknown>>
    >;
    expect(state.users?.map((u) => u.id)).toContain('carol-new');
    expect(state.clients?.map((c) => c.clientID)).toContain('later');
    expect(state.agents?.find((a) => a.id === 'shop-agent')?.webhookURL).toBe('http://127.0.0.1:9/hook');
    expect((await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${tx.txHash}`)).status).toBe(200);
    const refreshed = await postTokenForm(kudos.tokenURL, {
      client_id: 'shop',
      client_secret: 'shop-secret',
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    const me = await fetch(`${kudos.baseURL}/users/profile`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(200); // the signing key was kept too
    // The grant was kept: no consent page the second time.
    const browser = new CookieClient();
    await browser.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/in/account',
    });
    const again = await browser.get(
      `${kudos.authURL}/in/oauth/?client_id=shop&redirect_uri=https://shop.example/cb&scope=profile`,
    );
    expect(locationOf(again).searchParams.get('code')).toBeTruthy();
  });

  it.each([
    ['not JSON', '{"format":1,'],
    ['another JSON document', '{"hello":"world"}'],
  ])(
    'stops the start with a message naming the file when it is %s, and leaves it as it is',
    async (_what, content) => {
      const file = join(folder(), 'state.json');
      writeFileSync(file, content);
      await expect(startKudosEmulator({ state: file })).rejects.toThrow(
        new RegExp(`state file ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} .*left as it is`),
      );
      expect(readFileSync(file, 'utf8')).toBe(content);
    },
  );

  it('stops the start when the file cannot be read (a folder)', async () => {
    const dir = folder();
    await expect(startKudosEmulator({ state: dir })).rejects.toThrow(`state file ${dir} cannot be read`);
  });

  it('starts empty, and creates the file on the first change', async () => {
    const file = join(folder(), 'new.json');
    kudos = await startKudosEmulator({ state: file });
    expect(existsSync(file)).toBe(false);
    kudos.addUser({ id: 'first-user', password: 'pw' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(JSON.parse(readFileSync(file, 'utf8')).users.map((u: { id: string }) => u.id)).toContain(
      'first-user',
    );
  });
});

describe('--auto-login USER (option autoLogin)', () => {
  it('signs that user in and accepts at once: the authorization page redirects with a code', async () => {
    const kudos = await startKudosEmulator({ clients: [CLIENT], users: PAYMENT_USERS, autoLogin: 'bobby' });
    try {
      const res = await fetch(
        `${kudos.authURL}/in/oauth/?client_id=shop&redirect_uri=https://shop.example/cb&scope=profile&state=s1`,
        { redirect: 'manual' },
      );
      expect(res.status).toBe(302);
      const back = locationOf(res);
      expect(back.searchParams.get('state')).toBe('s1');
      const tokens = await exchangeCode(kudos.tokenURL, {
        ...SHOP_CREDENTIALS,
        code: back.searchParams.get('code') ?? '',
      });
      expect(tokens.user).toBe('bobby');
      // A request the emulator would refuse is still refused: auto-login never skips the checks.
      const bad = await fetch(
        `${kudos.authURL}/in/oauth/?client_id=shop&redirect_uri=https://evil.example/cb`,
        { redirect: 'manual' },
      );
      expect(bad.status).toBe(400);
    } finally {
      await kudos.close();
    }
  });

  it('refuses a user that does not exist', async () => {
    await expect(startKudosEmulator({ autoLogin: 'nobody-here' })).rejects.toThrow(
      '"autoLogin" names no user',
    );
  });
});
