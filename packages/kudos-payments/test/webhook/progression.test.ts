import { describe, expect, it } from 'vitest';
import type { KudosTxStatus } from '../../../kudos-core/src/chain/index.js';
import { classifyStatusChange } from '../../src/index.js';

describe('classifyStatusChange', () => {
  const all: KudosTxStatus[] = ['pending', 'success', 'fail', 'timeout'];
  const advances = new Set(['pending>success', 'pending>fail', 'pending>timeout', 'timeout>success']);

  it.each(all.flatMap((a) => all.map((b) => [a, b] as const)))('%s then %s', (previous, next) => {
    const expected = previous === next ? 'same' : advances.has(`${previous}>${next}`) ? 'advance' : 'stale';
    expect(classifyStatusChange(previous, next)).toBe(expected);
  });

  it('calls the first status of a transaction new', () => {
    for (const status of all) expect(classifyStatusChange(undefined, status)).toBe('new');
  });
});
