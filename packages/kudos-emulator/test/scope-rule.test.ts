import { hasScope, KNOWN_KUDOS_SCOPES } from 'passport-kudos';
import { describe, expect, it } from 'vitest';
import { grantCovers } from '../src/model/scopes.js';

// The emulator reads the service's scope hierarchy on its own (src/model/scopes.ts); the library's
// hasScope() reads it for apps. Held against each other on every pair, they cannot drift apart.
const SCOPES = [
  ...KNOWN_KUDOS_SCOPES,
  'read',
  'write',
  'kudos',
  'read:kudos.button.extra',
  'unknown',
  'write:other',
];

describe('the emulator and the library read the scope hierarchy alike', () => {
  it.each(SCOPES)('for what %s covers', (granted) => {
    for (const needed of SCOPES) {
      expect(grantCovers([granted], needed), `${granted} covers ${needed}`).toBe(hasScope([granted], needed));
    }
  });

  it('as the documented examples say', () => {
    expect(grantCovers('read:kudos', 'read:kudos.info')).toBe(true);
    expect(grantCovers(['read'], ['read:kudos.button', 'read:kudos.info'])).toBe(true);
    expect(grantCovers('kudos', 'write:kudos.info')).toBe(true);
    expect(grantCovers('read', 'write:kudos')).toBe(false);
    expect(grantCovers('read write', 'email')).toBe(false);
    expect(grantCovers('profile', 'profile email')).toBe(false);
    expect(grantCovers('', [])).toBe(true);
  });
});
