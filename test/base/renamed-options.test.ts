import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKudosClient, KudosStrategy, type KudosVerify, MemoryTokenStore } from '../../src/index.js';
import { kudosPayments, kudosWebhook, MemoryDedupeStore } from '../../src/webhook/index.js';
import { WALLETS } from '../helpers/chain-answer.mjs';

// The options renamed so that their names say their unit (CHANGELOG.md lists them): the old name is
// still read for one minor version, with one DeprecationWarning per option and process; both names
// with different values are refused.

const STRATEGY = {
  clientID: 'app',
  clientSecret: 'secret',
  callbackURL: '/cb',
  authURL: 'https://kudos.test',
  baseURL: 'https://kudos.test/api',
};
const verify: KudosVerify = (_a, _r, _p, done) => done(null, {});
const WEBHOOK = {
  secret: 'renamed-options-secret-0123',
  onNotification: () => undefined,
  store: new MemoryDedupeStore(),
};

describe('renamed options', () => {
  const warnings: Error[] = [];
  const listen = (warning: Error) => warnings.push(warning);
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', listen);
  });
  afterEach(() => {
    process.off('warning', listen);
  });
  const deprecations = async () => {
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    return warnings
      .filter((w) => (w as { code?: string }).code === 'KUDOS_DEP_RENAMED_OPTION')
      .map((w) => w.message);
  };

  it('KudosStrategy: timeout is read as timeoutMs, warned of once', async () => {
    const old = new KudosStrategy({ ...STRATEGY, timeout: 1234 }, verify);
    new KudosStrategy({ ...STRATEGY, timeout: 99 }, verify);
    expect(old._kudos.request.timeout).toBe(1234);
    expect(new KudosStrategy({ ...STRATEGY, timeoutMs: 4321 }, verify)._kudos.request.timeout).toBe(4321);
    expect(await deprecations()).toEqual([
      'KudosStrategy option "timeout" is renamed "timeoutMs" (its name now says its unit); "timeout" is still read until the next minor version',
    ]);
    expect(() => new KudosStrategy({ ...STRATEGY, timeout: 0 }, verify)).toThrow(
      'KudosStrategy option "timeout" must be a positive number',
    );
    expect(() => new KudosStrategy({ ...STRATEGY, timeout: 1, timeoutMs: 2 }, verify)).toThrow(
      'KudosStrategy options "timeout" and "timeoutMs" differ: "timeout" is the old name of "timeoutMs"; pass "timeoutMs" only',
    );
  });

  it('createKudosClient: timeout is read as timeoutMs; kudosWebhook and kudosPayments: limit as maxBodyBytes', async () => {
    const strategy = new KudosStrategy(STRATEGY, verify);
    createKudosClient({ strategy, tokens: new MemoryTokenStore(), timeout: 500 });
    expect(() =>
      createKudosClient({ strategy, tokens: new MemoryTokenStore(), timeout: 5, timeoutMs: 6 }),
    ).toThrow('"timeout" and "timeoutMs" differ');
    const hook = kudosWebhook({ ...WEBHOOK, limit: 10 });
    expect((hook.receiver as unknown as { limit: number }).limit).toBe(10);
    expect(
      (kudosWebhook({ ...WEBHOOK, maxBodyBytes: 11 }).receiver as unknown as { limit: number }).limit,
    ).toBe(11);
    const payments = kudosPayments({
      secret: WEBHOOK.secret,
      authURL: 'https://kudos.test',
      baseURL: 'https://kudos.test/api',
      receiver: WALLETS.shop,
      to: 'shop',
      agent: 'shop-agent',
      onPaid: () => undefined,
      limit: 12,
    });
    expect((payments.webhook.receiver as unknown as { limit: number }).limit).toBe(12);
    expect(await deprecations()).toEqual([
      expect.stringContaining('createKudosClient option "timeout" is renamed "timeoutMs"'),
      expect.stringContaining('kudosWebhook option "limit" is renamed "maxBodyBytes"'),
      expect.stringContaining('kudosPayments option "limit" is renamed "maxBodyBytes"'),
    ]);
  });
});
