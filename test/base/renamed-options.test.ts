import { describe, expect, it } from 'vitest';
import { createKudosClient, KudosStrategy, type KudosVerify, MemoryTokenStore } from '../../src/index.js';
import { kudosPayments, kudosWebhook, MemoryDedupeStore } from '../../src/webhook/index.js';
import { WALLETS } from '../helpers/chain-answer.mjs';

// Options whose names say their unit (`timeoutMs`, `maxBodyBytes`): the names they had before the
// first release (`timeout`, `limit`) are refused by name, never silently ignored (a time limit or a
// size cap dropped without a word would be the default without anyone knowing).

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
const PAYMENTS = {
  secret: WEBHOOK.secret,
  authURL: 'https://kudos.test',
  baseURL: 'https://kudos.test/api',
  receiver: WALLETS.shop,
  to: 'shop',
  agent: 'shop-agent',
  onPaid: () => undefined,
};
/** The options as a JavaScript app passes them: the compiler does not see them. */
const js = <T>(options: T & Record<string, unknown>): T => options;

describe('options named before they said their unit', () => {
  it.each([
    [
      'KudosStrategy',
      'timeout',
      'timeoutMs',
      () => new KudosStrategy(js({ ...STRATEGY, timeout: 1234 }), verify),
    ],
    [
      'createKudosClient',
      'timeout',
      'timeoutMs',
      () =>
        createKudosClient(
          js({ strategy: new KudosStrategy(STRATEGY, verify), tokens: new MemoryTokenStore(), timeout: 500 }),
        ),
    ],
    ['kudosWebhook', 'limit', 'maxBodyBytes', () => kudosWebhook(js({ ...WEBHOOK, limit: 10 }))],
    ['kudosPayments', 'limit', 'maxBodyBytes', () => kudosPayments(js({ ...PAYMENTS, limit: 12 }))],
  ])('%s refuses "%s", naming "%s"', (owner, old, current, make) => {
    expect(make).toThrow(TypeError);
    expect(make).toThrow(`${owner} has no option "${old}": its name is "${current}"`);
  });

  it('take the names that say their unit', () => {
    expect(() => new KudosStrategy({ ...STRATEGY, timeoutMs: 4321 }, verify)).not.toThrow();
    expect(() => new KudosStrategy({ ...STRATEGY, timeoutMs: 0 }, verify)).toThrow(
      'KudosStrategy option "timeoutMs" must be a positive number',
    );
    expect(() => kudosWebhook({ ...WEBHOOK, maxBodyBytes: 11 })).not.toThrow();
    expect(() => kudosPayments({ ...PAYMENTS, maxBodyBytes: 12 })).not.toThrow();
  });
});
