import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';

// The chain proxy's reads that real clients make (docs/kudos-service.md#chain-lookup), over real HTTP.
const START = 10_000_000_000_000n; // 10,000 tokens in nanokudos: every emulated wallet's start

describe('the chain proxy: balances, delegations and the legacy lookup (gone since the chain’s v4)', () => {
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

  it('the legacy /txs/{hash} answers 501 Not Implemented, as the chain since its v4 release, whatever the hash', async () => {
    const ok = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
    await kudos.idle();
    for (const hash of [ok.txHash, 'A'.repeat(64)]) {
      const res = await lcd(`/txs/${hash}`);
      expect(res.status).toBe(501);
      expect(await res.json()).toEqual({ code: 12, message: 'Not Implemented', details: [] });
    }
  });
});
