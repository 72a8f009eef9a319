import { afterEach, describe, expect, it } from 'vitest';
import { kudosWebhook, MemoryDedupeStore } from '../../src/index.js';

// A shop in production on the default memory store loses what it kept on a restart: it is told once.
describe('kudosWebhook() without a store, in production', () => {
  const before = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = before;
  });

  it('warns once (KUDOS_MEMORY_DEDUPE_STORE) that kept notifications do not survive a restart', async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on('warning', listener);
    try {
      const options = { secret: 'production-warning-secret', onNotification: () => undefined };
      process.env.NODE_ENV = 'development';
      kudosWebhook(options);
      process.env.NODE_ENV = 'production';
      kudosWebhook({ ...options, store: new MemoryDedupeStore() }); // a store was chosen: no warning
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
      kudosWebhook(options);
      kudosWebhook(options);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ name: 'KudosWarning', code: 'KUDOS_MEMORY_DEDUPE_STORE' });
      expect(warnings[0]?.message).toMatch(/do not survive a restart.*SqliteDedupeStore/);
    } finally {
      process.off('warning', listener);
    }
  });
});
