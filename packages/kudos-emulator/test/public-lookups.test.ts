import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';
import { SHOP_CLIENT, shopSignIn } from '../../../test/helpers/shop-client.js';

// The service's public lookups (docs/kudos-service.md#public-lookups, #transactions), over real HTTP.
describe('the public lookups answer as the service does', () => {
  let kudos: KudosEmulator;
  const SINCE = 1_700_000_000_000;
  beforeAll(async () => {
    kudos = await startKudosEmulator({
      clients: [SHOP_CLIENT],
      users: [
        ...PAYMENT_USERS.map((u) =>
          u.id === 'alice' ? { ...u, civicLiker: true, civicLikerSince: SINCE } : u,
        ),
        { id: 'trial-user', password: 'pw', civicLiker: 'trial' as const },
      ],
      agents: [{ id: 'shop-agent' }],
      paymentDelayMs: 5,
    });
  });
  afterAll(() => kudos.close());

  const api = (path: string) => fetch(`${kudos.baseURL}${path}`);

  it('/users/id/{id}/min is cacheable for 30 s, unlike the token-checked routes', async () => {
    const res = await api('/users/id/bobby/min');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=30, stale-while-revalidate=86400');
    expect(res.headers.get('pragma')).toBeNull();
    expect(await res.json()).toMatchObject({ user: 'bobby', cosmosWallet: kudos.walletOf('bobby') });
    const history = await api('/tx/history/user/bobby');
    expect(history.headers.get('cache-control')).toContain('no-store');
  });

  it('civic users carry isSubscribedCivicLiker or isCivicLikerTrial and civicLikerSince; others none of them', async () => {
    const alice = (await (await api('/users/id/alice/min')).json()) as Record<string, unknown>;
    expect(alice).toMatchObject({ isSubscribedCivicLiker: true, civicLikerSince: SINCE });
    expect(alice).not.toHaveProperty('isCivicLikerTrial');
    const trial = (await (await api('/users/id/trial-user/min')).json()) as Record<string, unknown>;
    expect(trial).toMatchObject({ isCivicLikerTrial: true, civicLikerSince: expect.any(Number) });
    expect(trial).not.toHaveProperty('isSubscribedCivicLiker');
    const bobby = (await (await api('/users/id/bobby/min')).json()) as Record<string, unknown>;
    for (const field of ['isSubscribedCivicLiker', 'isCivicLikerTrial', 'civicLikerSince'])
      expect(bobby).not.toHaveProperty(field);
    // The same in /users/profile, with a token.
    const tokens = await shopSignIn(kudos, { scope: 'profile' });
    const profile = await fetch(`${kudos.baseURL}/users/profile`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(await profile.json()).toMatchObject({
      user: 'alice',
      isSubscribedCivicLiker: true,
      civicLikerSince: SINCE,
    });
  });

  it('/users/addr/{address}/min finds a user (or agent) by wallet address', async () => {
    for (const id of ['bobby', 'shop-agent']) {
      const res = await api(`/users/addr/${kudos.walletOf(id)}/min`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=30, stale-while-revalidate=86400');
      expect(await res.json()).toMatchObject({ user: id, cosmosWallet: kudos.walletOf(id) });
    }
  });

  it.each([
    ['an unknown id', '/users/id/nobody-here/min'],
    // A valid address (checksum and all) that no user has: a string that is no address is 400.
    ['an unknown address', '/users/addr/cosmos12efkd3f6fxp49hczagjjmtl2cvj9nztx8dpak3/min'],
    ['an unknown hash', `/tx/id/${'A'.repeat(64)}`],
  ])('answers %s with 404 Not Found as text/plain', async (_name, path) => {
    const res = await api(path);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('Not Found');
  });

  it('/tx/id/{hash} finds a record only by the hash as recorded (upper case)', async () => {
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
    await kudos.idle();
    expect((await api(`/tx/id/${tx.txHash}`)).status).toBe(200);
    const lower = await api(`/tx/id/${tx.txHash.toLowerCase()}`);
    expect(lower.status).toBe(404);
    expect(await lower.text()).toBe('Not Found');
  });

  it('checks the civic options, naming the field', async () => {
    await expect(
      startKudosEmulator({ users: [{ id: 'civic-bad', password: 'pw', civicLiker: 'yes' as never }] }),
    ).rejects.toThrow('users[0].civicLiker');
    await expect(
      startKudosEmulator({
        users: [{ id: 'civic-bad', password: 'pw', civicLiker: true, civicLikerSince: -1 }],
      }),
    ).rejects.toThrow('users[0].civicLikerSince');
  });
});
