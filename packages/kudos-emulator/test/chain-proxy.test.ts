import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';

// The chain proxy's reads that real clients make (docs/kudos-service.md#chain-lookup), over real HTTP.
const START = 10_000_000_000_000n; // 10,000 tokens in nanokudos: every emulated wallet's start

describe('the chain proxy: balances, delegations and the legacy lookup', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent' }],
      paymentDelayMs: 5,
    });
  });
  afterAll(() => kudos.close());

  const lcd = (path: string) => fetch(`${kudos.baseURL}/cosmos/lcd${path}`);
  const balance = async (id: string) => {
    const res = await lcd(`/cosmos/bank/v1beta1/balances/${kudos.walletOf(id)}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { balances: Array<{ denom: string; amount: string }> };
    expect(body.balances.every((b) => b.denom === 'nanokudos')).toBe(true);
    return BigInt(body.balances[0]?.amount ?? '0');
  };

  it('balances start at 10,000 tokens and follow successful payments: the payer pays every output', async () => {
    expect(await balance('alice')).toBe(START);
    kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0.5' });
    kudos.pay({ from: 'bobby', to: 'alice', amount: '1', outcome: 'fail' }); // a failed one moves nothing
    await kudos.idle();
    expect(await balance('alice')).toBe(START - 2_500_000_000n);
    expect(await balance('bobby')).toBe(START + 2_000_000_000n);
    expect(await balance('shop-agent')).toBe(START + 500_000_000n);
    const stranger = await lcd('/cosmos/bank/v1beta1/balances/cosmos1nobody');
    expect(await stranger.json()).toEqual({ balances: [] });
    expect(stranger.headers.get('cache-control')).toBe('public, max-age=1');
  });

  it('delegations are an empty list', async () => {
    const res = await lcd(`/cosmos/staking/v1beta1/delegations/${kudos.walletOf('alice')}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ delegation_responses: [] });
  });

  it('the legacy /txs/{hash} marks a success in logs[0].success; a failed one has a code and no successful log', async () => {
    const ok = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
    const failed = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', outcome: 'fail' });
    await kudos.idle();
    const good = (await (await lcd(`/txs/${ok.txHash}`)).json()) as Record<string, unknown>;
    expect(good).not.toHaveProperty('code');
    expect((good.logs as Array<Record<string, unknown>>)[0]).toMatchObject({
      msg_index: 0,
      success: true,
      log: '',
    });
    const bad = (await (await lcd(`/txs/${failed.txHash}`)).json()) as Record<string, unknown>;
    expect(bad.code).not.toBe(0);
    expect(bad.code).toEqual(expect.any(Number));
    expect((bad.logs as Array<{ success?: boolean }>).some((log) => log.success === true)).toBe(false);
  });
});
