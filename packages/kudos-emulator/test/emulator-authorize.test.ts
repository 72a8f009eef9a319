import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { formFields, PAYMENT_USERS, passAuthorization } from '../../../test/helpers/emulator-user.js';
import { SHOP_CLIENT, shopAuthorizeURL } from '../../../test/helpers/shop-client.js';

const CLIENT = {
  clientID: 'shop',
  clientSecret: 'shop-secret',
  name: 'The Shop',
  redirectURIs: ['http://127.0.0.1/callback', 'https://shop.example/cb'],
  scopes: ['profile', 'email', 'read:kudos.info'],
};

describe('emulator authorization page (docs/kudos-service.md#authorization-page)', () => {
  let kudos: KudosEmulator;
  let client: CookieClient;

  function authorizeURL(params: Record<string, string>): string {
    return `${kudos.authURL}/in/oauth/?${new URLSearchParams(params)}`;
  }
  const good = {
    client_id: 'shop',
    scope: 'profile email',
    redirect_uri: 'http://127.0.0.1:4567/callback',
    state: 's1',
  };

  async function errorPage(url: string, title: string, message: RegExp): Promise<void> {
    const res = await client.get(url);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain(`<h1>${title}</h1>`);
    expect(html).toMatch(message);
  }

  beforeEach(async () => {
    kudos = await startKudosEmulator({ clients: [CLIENT] });
    client = new CookieClient();
  });
  afterEach(() => kudos.close());

  it('refuses login and register forms without the token of their page (403), and takes them with it', async () => {
    for (const path of ['/in/login', '/in/register']) {
      const blind = await fetch(`${kudos.authURL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'alice', password: 'wonderland', next: '/in/account' }),
        redirect: 'manual',
      });
      expect([blind.status, blind.headers.get('set-cookie')], path).toEqual([403, null]);
      const page = await blind.text();
      expect(page).toContain('Form expired');
      expect(page).toContain('&quot;form_token&quot; field');
      expect(page).toContain('FORM_TOKEN_INVALID');
    }
    const signedIn = await client.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/in/account',
    });
    expect(signedIn.status).toBe(302);
  });

  it('names the demo users on its login page, and no account of its own configuration', async () => {
    const page = await (await client.get(`${kudos.authURL}/in/login`)).text();
    expect(page).toContain(
      '<p id="demo-users">Demo users: <code>alice / wonderland</code>, <code>bobby / builder</code></p>',
    );
    await kudos.close();
    kudos = await startKudosEmulator({ clients: [CLIENT], users: [{ id: 'zelda', password: 'private-pw' }] });
    const own = await (await client.get(`${kudos.authURL}/in/login`)).text();
    expect(own).not.toContain('demo-users');
    expect(own).not.toContain('private-pw');
  });

  it('listens on 127.0.0.1 with a free port and derives its URLs from it', () => {
    expect(kudos.authURL).toBe(`http://127.0.0.1:${kudos.port}`);
    expect(kudos.baseURL).toBe(`http://127.0.0.1:${kudos.port}/api`);
    expect(kudos.port).toBeGreaterThan(0);
  });

  it('sends a user who is not signed in to /in/register?redirect=<the page’s absolute URL>, and back after login', async () => {
    const res = await client.get(authorizeURL(good));
    expect(res.status).toBe(302);
    const login = locationOf(res, kudos.authURL);
    expect(login.pathname).toBe('/in/register');
    expect(login.searchParams.get('redirect')).toBe(authorizeURL(good));
    const page = await client.get(login);
    const html = await page.text();
    expect(html).toContain('name="username"');
    expect(html).toContain('name="password"');
    expect(html).toContain('/in/register');
    const next = (/name="next" value="([^"]*)"/.exec(html)?.[1] ?? '').replace(
      /&(?:#(\d+)|amp);/g,
      (_, code) => (code ? String.fromCharCode(Number(code)) : '&'),
    );
    expect(new URL(next, kudos.authURL).toString()).toBe(authorizeURL(good));
    const done = await client.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next,
    });
    expect(done.headers.get('set-cookie')).toMatch(
      /^kudos_emulator_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax/,
    );
    expect(locationOf(done, kudos.authURL).toString()).toBe(authorizeURL(good));
  });

  it('a redirect to anywhere but this emulator goes to the account page after login, never away', async () => {
    for (const elsewhere of [
      'https://evil.example/in/oauth/',
      'http://127.0.0.1:1/in/oauth/',
      '/in/oauth/',
      'nonsense',
    ]) {
      const html = await (
        await client.get(`${kudos.authURL}/in/register?redirect=${encodeURIComponent(elsewhere)}`)
      ).text();
      expect(html).toContain('<input type="hidden" name="next" value="/in/account">');
    }
  });

  it('answers a wrong password with the login page again and 401', async () => {
    const res = await client.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'nope',
      next: '/in/account',
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('Wrong username or password.');
  });

  it('never continues to an address outside the emulator after login', async () => {
    const res = await client.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '//evil.example/in/x',
    });
    expect(res.headers.get('location')).toBe('/in/account');
  });

  it('shows the client name and each requested scope with its description, with Accept and Decline', async () => {
    await client.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/in/account',
    });
    const res = await client.get(authorizeURL({ ...good, scope: 'profile email read:kudos.info' }));
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(html).toContain('<span id="client-name">The Shop</span>');
    expect(html).toContain('<code>profile</code>: Basic public user information');
    expect(html).toContain('<code>email</code>: Access to the user&#39;s e-mail address');
    expect(html).toContain(
      '<code>read:kudos.info</code>: Read the user&#39;s kudos-given authors, content suggestions, and similar',
    );
    expect(html).toContain('value="accept">Accept</button>');
    expect(html).toContain('value="decline">Decline</button>');
  });

  it('redirects an accepted consent to redirect_uri with the code and state', async () => {
    const res = await passAuthorization(client, authorizeURL(good));
    expect(res.status).toBe(302);
    const back = locationOf(res);
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:4567/callback');
    expect(back.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    expect(back.searchParams.get('state')).toBe('s1');
  });

  it('redirects a declined consent with error=denied and the state, and no code', async () => {
    const res = await passAuthorization(client, authorizeURL(good), { decision: 'decline' });
    const back = locationOf(res);
    expect(back.searchParams.get('error')).toBe('denied');
    expect(back.searchParams.get('state')).toBe('s1');
    expect(back.searchParams.has('code')).toBe(false);
  });

  it.each(['auth_code', 'authorization_code'] as const)(
    'names the code parameter "%s" when configured',
    async (name) => {
      await kudos.close();
      kudos = await startKudosEmulator({ clients: [CLIENT], codeParam: name });
      const back = locationOf(await passAuthorization(client, authorizeURL(good)));
      expect(back.searchParams.get(name)).toMatch(/^[\w-]{43}$/);
      expect(back.searchParams.has('code')).toBe(false);
    },
  );

  it('skips the password on a second authorization (its own session cookie), and the consent once authorized (observed)', async () => {
    await passAuthorization(client, authorizeURL(good));
    const second = await client.get(authorizeURL({ ...good, state: 's2' }));
    expect(second.status).toBe(302);
    const back = locationOf(second);
    expect(back.searchParams.get('code')).toMatch(/.{20,}/);
    expect(back.searchParams.get('state')).toBe('s2');
  });

  it('registers a new account and continues to the consent page as that user', async () => {
    const start = locationOf(await client.get(authorizeURL(good)), kudos.authURL);
    const back = new URL(start.searchParams.get('redirect') ?? '', kudos.authURL);
    const res = await client.postForm(`${kudos.authURL}/in/register`, {
      username: 'carol-new',
      password: 'long-enough',
      displayName: 'Carol',
      email: 'carol@example.test',
      next: back.pathname + back.search,
    });
    expect(res.status).toBe(302);
    const consent = await client.get(locationOf(res, kudos.authURL));
    expect(await consent.text()).toContain('<strong id="current-user">carol-new</strong>');
  });

  it.each([
    [{ username: 'Bad Name', password: 'long-enough' }, 'Username must be'],
    [{ username: 'alice', password: 'long-enough' }, 'That username is taken.'],
    [{ username: 'dave', password: 'long-enough' }, 'Username must be 5 to 20 characters'], // observed user IDs
    [{ username: 'a'.repeat(21), password: 'long-enough' }, 'Username must be 5 to 20 characters'],
    [{ username: 'dave-d', password: 'short' }, 'Password must have 8 characters or more.'],
    [
      { username: 'dave-d', password: 'long-enough', email: 'not-an-address' },
      'E-mail address is not valid.',
    ],
  ])('refuses a bad registration %j with 400 and the reason', async (form, message) => {
    const res = await client.postForm(`${kudos.authURL}/in/register`, { next: '/in/account', ...form });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(message);
  });

  it('shows an error page, never a redirect, for an unknown client', async () => {
    await errorPage(
      authorizeURL({ ...good, client_id: 'nobody' }),
      'Unknown application',
      /client_id is missing or unknown/,
    );
    await errorPage(
      authorizeURL({ scope: 'profile', redirect_uri: good.redirect_uri }),
      'Unknown application',
      /unknown/,
    );
  });

  it('shows an error page for a redirect_uri that is not whitelisted, or missing', async () => {
    for (const redirect of [
      'https://evil.example/callback',
      'http://127.0.0.1:4567/other',
      'http://127.0.0.2/callback',
    ]) {
      await errorPage(
        authorizeURL({ ...good, redirect_uri: redirect }),
        'Invalid redirect address',
        /not whitelisted for The Shop/,
      );
    }
    const { redirect_uri: _omitted, ...noRedirect } = good;
    await errorPage(authorizeURL(noRedirect), 'Invalid redirect address', /missing/);
  });

  it('shows an error page for a scope that is not whitelisted for the client', async () => {
    await errorPage(
      authorizeURL({ ...good, scope: 'profile write:kudos.button' }),
      'Invalid scope',
      /Scope &quot;write:kudos.button&quot; is not whitelisted for The Shop/,
    );
  });

  it('refuses a consent form without the session CSRF token', async () => {
    await client.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/in/account',
    });
    const page = await client.get(authorizeURL(good));
    const fields = formFields(await page.text(), '/in/oauth/');
    const res = await client.postForm(`${kudos.authURL}/in/oauth/`, {
      ...fields,
      csrf: 'forged',
      decision: 'accept',
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
  });

  it('answers a path it has no route for with Express’s 404 page, and 405 with Allow', async () => {
    const missing = await client.get(`${kudos.authURL}/nowhere`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await missing.text()).toContain('<pre>Cannot GET /nowhere</pre>');
    const wrong = await client.request(`${kudos.baseURL}/oauth/access_token`, { method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('shows its endpoints and accounts on its home page', async () => {
    const html = await (await client.get(kudos.authURL)).text();
    expect(html).toContain(`${kudos.baseURL}/oauth/access_token`);
    expect(html).toContain('The Shop');
  });

  it('checks its options with TypeErrors naming the option', async () => {
    await expect(startKudosEmulator({ codeParam: 'token' as never })).rejects.toThrow(
      '"codeParam" must be one of',
    );
    await expect(startKudosEmulator({ users: [{ id: 'Not Valid', password: 'x' }] })).rejects.toThrow(
      'users[0].id',
    );
    await expect(
      startKudosEmulator({ clients: [{ clientID: 'c', clientSecret: 's', redirectURIs: ['nope'] }] }),
    ).rejects.toThrow('clients[0].redirectURIs');
    await expect(startKudosEmulator({ agents: [{ id: 'a', webhookURL: 'x' }] })).rejects.toThrow(TypeError);
  });
});

describe('the authorization page: state and a failing authorize call (fourth reading)', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({ clients: [SHOP_CLIENT], users: PAYMENT_USERS });
  });
  afterAll(() => kudos.close());

  it('sends back a non-empty state, and no state at all for an empty state=', async () => {
    const withState = locationOf(
      await passAuthorization(new CookieClient(), shopAuthorizeURL(kudos, { state: 'xyz' })),
    );
    expect(withState.searchParams.get('state')).toBe('xyz');
    const empty = locationOf(
      await passAuthorization(new CookieClient(), shopAuthorizeURL(kudos, { state: '' })),
    );
    expect(empty.searchParams.has('code')).toBe(true);
    expect(empty.searchParams.has('state')).toBe(false);
  });

  it('failNextAuthorization(word): the next authorization redirects with ?error=word and no state, once', async () => {
    kudos.failNextAuthorization('INVALID_SCOPE');
    const failed = locationOf(
      await passAuthorization(new CookieClient(), shopAuthorizeURL(kudos, { state: 'abc' })),
    );
    expect(`${failed.origin}${failed.pathname}`).toBe(SHOP_CLIENT.redirectURIs[0]);
    expect([...failed.searchParams]).toEqual([['error', 'INVALID_SCOPE']]);
    const next = locationOf(
      await passAuthorization(new CookieClient(), shopAuthorizeURL(kudos, { state: 'abc' })),
    );
    expect(next.searchParams.has('code')).toBe(true);
    expect(() => kudos.failNextAuthorization('not a word')).toThrow(TypeError);
  });
});
