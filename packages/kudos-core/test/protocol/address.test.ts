import { describe, expect, it } from 'vitest';
import { cosmosConfirmer } from '../../../kudos-payments/src/index.js';
import { accountKey, checkAddress, spellAddress } from '../../src/chain/address.js';

// Wallet addresses compared as accounts, in either spelling: a 32-byte account (a module's or a
// contract's, which the chain spells in bech32 too) is one payer, not two.
const ACCOUNT_32 = 'ab'.repeat(32);
const ACCOUNT_20 = 'cd'.repeat(20);

describe('accounts in either spelling', () => {
  it.each([
    ['20', ACCOUNT_20],
    ['32', ACCOUNT_32],
  ])('a %s-byte account is one account in kudos1… and cosmos1…', (_bytes, account) => {
    const main = spellAddress(account, 'kudos');
    const legacy = spellAddress(account, 'cosmos');
    expect(main).toMatch(/^kudos1/);
    expect(legacy).toMatch(/^cosmos1/);
    expect(checkAddress(main)).toEqual({ ok: true, account, prefix: 'kudos' });
    expect(checkAddress(legacy.toUpperCase())).toEqual({ ok: true, account, prefix: 'cosmos' });
    expect(accountKey(main)).toBe(accountKey(legacy));
    expect(accountKey(main)).toBe(account);
  });

  it('tells other lengths, checksums and prefixes apart, never throwing', () => {
    const short = spellAddress(ACCOUNT_20, 'kudos');
    expect(checkAddress(`${short.slice(0, -1)}${short.endsWith('q') ? 'p' : 'q'}`)).toMatchObject({
      ok: false,
    });
    expect(checkAddress('kudos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq')).toMatchObject({ ok: false });
    expect(accountKey('not-an-address')).toBe('text:not-an-address');
    expect(() => spellAddress('ab'.repeat(25), 'kudos')).toThrow(/40 or 64 lower-case hex characters/);
  });

  it('takes a 32-byte account as a recipient, in either spelling', () => {
    expect(() =>
      cosmosConfirmer({ restURL: 'http://127.0.0.1:9', wallet: spellAddress(ACCOUNT_32, 'cosmos') }),
    ).not.toThrow();
  });
});
