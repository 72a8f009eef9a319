import { describe, expect, it } from 'vitest';
import { MemoryRefreshLock } from '../../src/index.js';

describe('MemoryRefreshLock', () => {
  it('runs calls for the same key one after another, and other keys alongside', async () => {
    const lock = new MemoryRefreshLock();
    const log: string[] = [];
    // a holds u1 until c (another key) has started: c runs alongside a, b waits for a. No timing.
    let cStarted: () => void = () => undefined;
    const whileC = new Promise<void>((resolve) => {
      cStarted = resolve;
    });
    const task = (name: string, until?: Promise<void>) => async () => {
      log.push(`start ${name}`);
      if (name === 'c') cStarted();
      await until;
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      lock.withLock('u1', 1000, task('a', whileC)),
      lock.withLock('u1', 1000, task('b')),
      lock.withLock('u2', 1000, task('c')),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log.indexOf('end a')).toBeLessThan(log.indexOf('start b'));
    expect(log.indexOf('start c')).toBeLessThan(log.indexOf('end a'));
  });

  it('keeps going after a holder fails', async () => {
    const lock = new MemoryRefreshLock();
    await expect(lock.withLock('k', 1000, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    await expect(lock.withLock('k', 1000, async () => 'next')).resolves.toBe('next');
  });
});
