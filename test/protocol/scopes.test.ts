import { describe, expect, it } from 'vitest';
import { hasScope, KNOWN_KUDOS_SCOPES, scopeCovers } from '../../src/index.js';

// The expected coverage of every pair of documented scopes (docs/kudos-service.md#scopes):
// each scope covers itself; read:kudos and write:kudos cover their own narrower scopes.
const COVERS: Record<string, string[]> = {
  'read:kudos': ['read:kudos.button', 'read:kudos.info'],
  'write:kudos': ['write:kudos.button', 'write:kudos.info'],
};

describe('hasScope', () => {
  const pairs = KNOWN_KUDOS_SCOPES.flatMap((granted) =>
    KNOWN_KUDOS_SCOPES.map((required) => [granted, required]),
  );

  it.each(pairs)('granted %s, required %s', (granted, required) => {
    const expected = granted === required || (COVERS[granted] ?? []).includes(required);
    expect(hasScope([granted], required)).toBe(expected);
  });

  it('lets "read" and "write" cover every scope with that prefix and nothing else', () => {
    for (const scope of KNOWN_KUDOS_SCOPES) {
      expect(scopeCovers('read', scope)).toBe(scope.startsWith('read:'));
      expect(scopeCovers('write', scope)).toBe(scope.startsWith('write:'));
    }
  });

  it('lets a bare "kudos" cover every read:kudos… and write:kudos… scope, but not profile or email', () => {
    for (const scope of KNOWN_KUDOS_SCOPES) {
      expect(scopeCovers('kudos', scope)).toBe(scope.includes(':kudos'));
    }
  });

  it('accepts space-separated strings and requires every required scope', () => {
    expect(hasScope('profile read:kudos', ['profile', 'read:kudos.info'])).toBe(true);
    expect(hasScope('profile', 'profile email')).toBe(false);
    expect(hasScope([], [])).toBe(true);
    expect(hasScope('read:kudos.info', 'read:kudos')).toBe(false);
    expect(hasScope('read:kudosx', 'read:kudosx.info')).toBe(true);
    expect(hasScope('read:kudos', 'read:kudosx')).toBe(false);
  });
});
