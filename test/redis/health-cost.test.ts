import type { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { kudosPayments } from '../../packages/kudos-payments/src/index.js';
import { RedisDedupeStore, RedisOrderStore } from '../../packages/kudos-payments/src/redis/index.js';
import { WALLETS } from '../helpers/chain-answer.mjs';
import { redisWithClient } from '../helpers/redis-server.js';

// What health costs on Redis, counted in commands at a real redis-server of its own: status() and
// unprocessed() read the exceptions in a bounded number of round trips, whatever their number.

const EXCEPTIONS = 10_000;

/**
 * The client as the stores get it, counting the round trips they make (each `sendCommand`: one
 * command or one script sent, one answer back).
 */
function counted(client: ReturnType<typeof createClient>) {
  const sent = { count: 0 };
  const send = client.sendCommand.bind(client);
  const proxy = new Proxy(client, {
    get(target, name, receiver) {
      if (name !== 'sendCommand') return Reflect.get(target, name, receiver);
      return (...args: Parameters<typeof send>) => {
        sent.count++;
        return send(...args);
      };
    },
  });
  return { proxy, sent };
}

describe('status() and unprocessed() with 10,000 exceptions on Redis', () => {
  const served = redisWithClient();

  it('costs a bounded number of commands, not one per exception', async () => {
    const prefix = 'health:';
    // 10,000 exceptions (payments through the agent that name no order), as the ledger writes them.
    for (let at = 0; at < EXCEPTIONS; at += 1000) {
      const batch = served.client.multi();
      for (let i = at; i < at + 1000; i++) {
        const txHash = i.toString(16).toUpperCase().padStart(64, '0');
        const value = JSON.stringify({
          txHash,
          outcome: 'no_order',
          reference: null,
          received: '1',
          payer: null,
          source: 'webhook',
          decidedAt: 1_700_000_000_000 + i,
          told: true,
          acknowledged: false,
        });
        batch.hSet(`${prefix}{orders}:r:payment:${txHash}`, { v: value, n: '1' });
        batch.zAdd(`${prefix}{orders}:listed`, { score: i, value: `payment:${txHash}` });
        // The indexes of the payments' kind: by listing time, and by expiry (none: kept until acknowledged).
        batch.zAdd(`${prefix}{orders}:listed:payment:`, { score: i, value: `payment:${txHash}` });
        batch.zAdd(`${prefix}{orders}:until:payment:`, {
          score: Number.POSITIVE_INFINITY,
          value: `payment:${txHash}`,
        });
      }
      await batch.exec();
    }
    const stores = counted(served.client);
    const payments = kudosPayments({
      secret: 'health-cost-secret-0123456',
      authURL: 'http://127.0.0.1:9',
      baseURL: 'http://127.0.0.1:9/api',
      wallet: WALLETS.shop,
      shopUser: 'bobby',
      agent: 'shop-agent',
      store: new RedisDedupeStore(stores.proxy, { prefix: 'health-dedupe:' }),
      orders: new RedisOrderStore(stores.proxy, { prefix }),
      onPaid: () => undefined,
    });
    await payments.status(); // the stores' start-up checks, once
    const before = stores.sent.count;
    const status = await payments.status();
    const afterStatus = stores.sent.count;
    const listed = await payments.exceptions();
    const afterList = stores.sent.count;
    expect(status).toMatchObject({ storeOk: true, unprocessed: 0, exceptions: EXCEPTIONS });
    expect(listed).toHaveLength(EXCEPTIONS);
    // The dedupe store's 16 shards, and one script that counts the exceptions by their index (it parsed each).
    expect(afterStatus - before).toBeLessThan(40);
    expect(afterList - afterStatus).toBeLessThan(40);
  }, 60_000);
});
