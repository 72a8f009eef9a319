import type { ChildProcess } from 'node:child_process';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authURLOf, startCli } from '../../../test/helpers/cli.js';
import { PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';
import { SHOP_CLIENT, shopSignIn } from '../../../test/helpers/shop-client.js';

// The emulator as this interface last worked (docs/kudos-service.md, the chain after its v4 release and
// the service before its 2026 removals), and its `2026` generation (the service as it is now), over real
// HTTP: the chain's search by event, the histories as the service listed them, wallets, address
// lookups, the widget's refusals, and the removed routes.

const USERS = [
  ...PAYMENT_USERS,
  { id: 'newcomer', password: 'no-wallet-yet', wallet: false },
  { id: 'carol-payer', password: 'carol-pass' },
];

describe('the emulator as this interface last worked', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: USERS,
      agents: [{ id: 'shop-agent' }, { id: 'bare-agent', wallet: false }],
      clients: [{ ...SHOP_CLIENT, defaultScopes: ['profile', 'read'] }],
      paymentDelayMs: 5,
    });
  });
  afterAll(() => kudos.close());

  const api = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${kudos.baseURL}${path}`, { headers });
  const search = (query: string) => api(`/cosmos/lcd/cosmos/tx/v1beta1/txs?${query}`);
  const recipient = (address: string) => `events=${encodeURIComponent(`transfer.recipient='${address}'`)}`;

  describe('the chain’s transaction search by event', () => {
    it('lists what paid an address as the chain spells it, paged, newest first with ORDER_BY_DESC', async () => {
      const paid = [];
      for (let i = 1; i <= 5; i++) {
        paid.push(kudos.pay({ from: 'carol-payer', to: 'shop-agent', amount: String(i) }));
        kudos.advanceClock(1000);
      }
      await kudos.idle();
      const address = kudos.walletOf('shop-agent', 'kudos');
      const all = await (await search(`${recipient(address)}&order_by=ORDER_BY_DESC`)).json();
      // The chain's own software (SDK 0.46): a top-level total, no pagination.
      expect(all.total).toBe('5');
      expect(all.pagination).toBeNull();
      expect(all.tx_responses.map((r: { txhash: string }) => r.txhash)).toEqual(
        paid.map((tx) => tx.txHash).reverse(),
      );
      expect(all.txs[0].body.messages[0].to_address).toBe(address);
      const page = await (await search(`${recipient(address)}&order_by=ORDER_BY_DESC&page=2&limit=2`)).json();
      expect(page.tx_responses.map((r: { txhash: string }) => r.txhash)).toEqual([
        paid[2]?.txHash,
        paid[1]?.txHash,
      ]);
      // pagination.* is deprecated and ignored: page 1 again.
      const ignored = await (
        await search(`${recipient(address)}&order_by=ORDER_BY_DESC&pagination.limit=2&pagination.offset=2`)
      ).json();
      expect(ignored.tx_responses).toHaveLength(5);
      // Events spell addresses as paid: the main prefix; the legacy spelling finds nothing.
      const legacy = await (await search(recipient(kudos.walletOf('shop-agent', 'cosmos')))).json();
      expect(legacy.tx_responses).toEqual([]);
      expect(legacy.total).toBe('0');
    });

    it('refuses a search without an event, or with one it cannot read: 400 with the chain’s JSON', async () => {
      const spaced = `events=${encodeURIComponent("transfer.recipient = 'x'")}`;
      for (const query of ['', 'events=nonsense', `${recipient('x')}&limit=-1`, spaced]) {
        const res = await search(query);
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ code: 3, message: expect.any(String), details: [] });
      }
    });
  });

  describe('histories as the service listed them', () => {
    it('a MsgMultiSend (an agent fee, or several recipients) is listed under the payer only; records carry id', async () => {
      const single = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      const withFee = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0.5' });
      const several = kudos.pay({ from: 'alice', to: 'bobby,carol-payer', amount: '1,1' });
      await kudos.idle();
      const history = async (user: 'alice' | 'bobby') => {
        const tokens = await shopSignIn(kudos, {}, undefined, user);
        const res = await api(`/tx/history/user/${user}`, { authorization: `Bearer ${tokens.access_token}` });
        expect(res.status).toBe(200);
        return (await res.json()) as Array<{ id: string; txHash: string }>;
      };
      const payer = (await history('alice')).map((r) => r.txHash);
      for (const tx of [single, withFee, several]) expect(payer).toContain(tx.txHash);
      const receiver = await history('bobby');
      expect(receiver.map((r) => r.txHash)).toContain(single.txHash);
      expect(receiver.map((r) => r.txHash)).not.toContain(withFee.txHash);
      expect(receiver.map((r) => r.txHash)).not.toContain(several.txHash);
      for (const record of receiver) expect(record.id).toBe(record.txHash);
    });

    it('an agent sees no payment in its history, fee or no fee', async () => {
      const through = [
        kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' }),
        kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', fee: '1' }),
      ];
      const direct = kudos.pay({ from: 'alice', to: 'shop-agent', amount: '1' });
      await kudos.idle();
      // shop-agent is a user too: it signs in and reads its own history.
      const tokens = await shopSignIn(kudos, {}, undefined, 'shop-agent');
      const res = await api('/tx/history/user/shop-agent', {
        authorization: `Bearer ${tokens.access_token}`,
      });
      expect(res.status).toBe(200);
      const listed = ((await res.json()) as Array<{ txHash: string }>).map((r) => r.txHash);
      expect(listed).toContain(direct.txHash); // paid to it as a receiver: listed
      for (const tx of through) expect(listed).not.toContain(tx.txHash);
    });
  });

  describe('users and public lookups', () => {
    it('wallet is an Ethereum-style 0x address, never a chain address; a user registered lately has no wallet', async () => {
      const bobby = await (await api('/users/id/bobby/min')).json();
      expect(bobby.wallet).toMatch(/^0x[0-9a-f]{40}$/);
      expect(bobby.cosmosWallet).toBe(kudos.walletOf('bobby', 'cosmos'));
      expect(bobby.kudosWallet).toBe(kudos.walletOf('bobby', 'kudos'));
      const newcomer = await (await api('/users/id/newcomer/min')).json();
      for (const field of ['wallet', 'cosmosWallet', 'kudosWallet'])
        expect(newcomer).not.toHaveProperty(field);
    });

    it('/users/addr/{x}/min: 400 Invalid address for a string that is no address; a bech32 address in capitals is found', async () => {
      for (const bad of ['not-an-address', '0x1234', 'cosmos1nobody']) {
        const res = await api(`/users/addr/${bad}/min`);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
        expect(await res.text()).toBe('Invalid address');
      }
      const upper = await api(`/users/addr/${kudos.walletOf('bobby', 'kudos').toUpperCase()}/min`);
      expect(upper.status).toBe(200);
      expect((await upper.json()).user).toBe('bobby');
    });
  });

  describe('the widget’s refusals', () => {
    it('refuses a receiver or an agent without a wallet (RECEIPIENT_HAS_NO_WALLET, VIA_USER_HAS_NO_WALLET)', async () => {
      expect(() => kudos.pay({ from: 'alice', to: 'newcomer', amount: '1' })).toThrow(
        /"newcomer" .* has no wallet/,
      );
      expect(() => kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'bare-agent' })).toThrow(
        /"bare-agent" .* has no wallet/,
      );
      const page = await fetch(`${kudos.authURL}/in/widget/pay?to=newcomer&amount=1`);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('RECEIPIENT_HAS_NO_WALLET');
      const agentPage = await fetch(`${kudos.authURL}/in/widget/pay?to=bobby&amount=1&via=bare-agent`);
      expect(agentPage.status).toBe(400);
      expect(await agentPage.text()).toContain('VIA_USER_HAS_NO_WALLET');
    });

    it('refuses a payment above the payer’s balance, fee included; nothing is recorded', async () => {
      const balance = async () => {
        const body = await (
          await api(`/cosmos/lcd/cosmos/bank/v1beta1/balances/${kudos.walletOf('carol-payer')}`)
        ).json();
        return BigInt(body.balances[0]?.amount ?? '0');
      };
      const held = await balance();
      const tokens = held / 1_000_000_000n;
      expect(() =>
        kudos.pay({ from: 'carol-payer', to: 'bobby', amount: String(tokens), via: 'shop-agent', fee: '1' }),
      ).toThrow(/needs .* nanokudos and the wallet holds/);
      expect(await balance()).toBe(held);
      // What the balance covers is paid.
      kudos.pay({ from: 'carol-payer', to: 'bobby', amount: '1' });
      await kudos.idle();
      expect(await balance()).toBe(held - 1_000_000_000n);
    });
  });
});

describe('the emulator’s 2026 generation: the service as it is now', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5, generation: '2026' });
  });
  afterAll(() => kudos.close());

  it.each([
    `/tx/id/${'A'.repeat(64)}`,
    '/tx/history/user/alice',
    `/cosmos/lcd/cosmos/tx/v1beta1/txs/${'A'.repeat(64)}`,
    '/cosmos/lcd/cosmos/tx/v1beta1/txs?events=x',
    '/cosmos/rpc/status',
    '/users/id/alice',
    '/users/self',
  ])('answers %s with Express’s 404 page', async (path) => {
    const res = await fetch(`${kudos.baseURL}${path}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain(`<pre>Cannot GET ${path.split('?')[0]}</pre>`);
  });

  it('keeps /users/id/{id}/min, /users/addr/{address}/min and the chain node’s own REST interface', async () => {
    expect((await fetch(`${kudos.baseURL}/users/id/alice/min`)).status).toBe(200);
    expect((await fetch(`${kudos.baseURL}/users/addr/${kudos.walletOf('alice')}/min`)).status).toBe(200);
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
    await kudos.idle();
    const lookup = await fetch(`${kudos.chainURL}/cosmos/tx/v1beta1/txs/${tx.txHash}`);
    expect(lookup.status).toBe(200);
    expect((await lookup.json()).tx_response.txhash).toBe(tx.txHash);
  });

  it('refuses a generation it does not know', async () => {
    await expect(startKudosEmulator({ generation: '2030' as never })).rejects.toThrow(
      /"generation" must be one of 2025, 2026/,
    );
  });
});

describe('kudos-emulator --generation 2026', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGTERM');
  });

  it('answers the removed routes with Express’s 404 page', async () => {
    const started = startCli(['--port', '0', '--quiet', '--generation', '2026']);
    children.push(started.child);
    const banner = await started.output;
    const authURL = authURLOf(banner);
    expect(authURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The banner names the generation and the chain node to point restURL at, and no removed route.
    expect(banner).toContain(`chain:     ${authURL}/chain`);
    expect(banner).toContain('generation: 2026');
    expect(banner).not.toContain('/cosmos/lcd   (');
    expect(banner).not.toContain('LCD:');
    const res = await fetch(`${authURL}/api/tx/history/user/alice`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('<pre>Cannot GET /tx/history/user/alice</pre>');
    expect((await fetch(`${authURL}/api/users/id/alice/min`)).status).toBe(200);
  });
});
