import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { KudosApiError, KudosError, KudosTokenError } from '../../src/index.js';

// One error hierarchy: every package's errors extend kudos-core's KudosError, and `instanceof
// KudosError` holds even across two copies of kudos-core in one process (an app whose packages
// depend on two versions of it), while the subclasses stay told apart as usual.

describe('KudosError', () => {
  it('is the base of every class, and instanceof tells the subclasses apart', () => {
    const token = new KudosTokenError('invalid_grant');
    expect(token).toBeInstanceOf(KudosError);
    expect(token).toBeInstanceOf(KudosTokenError);
    expect(token).not.toBeInstanceOf(KudosApiError);
    expect(new Error('plain')).not.toBeInstanceOf(KudosError);
    const notObjects: unknown[] = [null, undefined, 'store_unavailable', 503];
    for (const value of notObjects) expect(value instanceof KudosError).toBe(false);
  });

  it('holds across two copies of kudos-core loaded in one process (the built package, twice)', () => {
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        `const path = require.resolve('kudos-core');
         const first = require(path);
         for (const key of Object.keys(require.cache)) if (key.includes('kudos-core')) delete require.cache[key];
         const second = require(path);
         const theirs = new second.KudosTokenError('invalid_grant');
         console.log(JSON.stringify([first.KudosError !== second.KudosError, theirs instanceof first.KudosError,
           theirs instanceof first.KudosTokenError, new first.KudosError('store_unusable') instanceof second.KudosError]));`,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    // Two classes; the base holds across them; a subclass of the other copy is that copy's class.
    expect(JSON.parse(out)).toEqual([true, true, false, true]);
  });
});
