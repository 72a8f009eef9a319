import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KudosKeptNotification } from '../../../packages/kudos-payments/src/index.js';
import { RedisDedupeStore, RedisOrderStore } from '../../../packages/kudos-payments/src/redis/index.js';
import {
  dedupeStoreContract,
  orderStoreContract,
} from '../../../packages/kudos-payments/src/testing/index.js';
import type { KudosTokenSet } from '../../../src/index.js';
import { RedisRefreshLock, RedisTokenStore } from '../../../src/redis/index.js';
import {
  type ConnectedRedis,
  connectRedis,
  type RedisLibrary,
  type RedisPlace,
} from '../../helpers/redis-clients.js';

// The three Redis stores on every client and topology the package supports, each against real
// redis-server processes this file starts: one server, a cluster of 3 masters and 3 replicas, and a
// master and replica under a Sentinel; node-redis and ioredis on each.
export const LIBRARIES: RedisLibrary[] = ['node-redis', 'ioredis'];

/** A kept record for `hash`, arriving at `receivedAt`. */
function kept(hash: string, receivedAt: number): KudosKeptNotification {
  return {
    key: `${hash}:success`,
    txHash: hash,
    status: 'success',
    attempts: 1,
    lastError: 'handler_failed: the shop database is down',
    receivedAt,
    body: { tx: { txHash: hash, status: 'success' } },
    source: 'webhook',
    trusted: true,
  };
}

/** A token set of `user`. */
function tokens(user: string): KudosTokenSet {
  return { accessToken: `at-${user}`, refreshToken: `rt-${user}`, user, expiresAt: 1, scope: ['profile'] };
}

export function storeSuite(library: RedisLibrary, where: string, place: () => RedisPlace) {
  describe(`${library} on ${where}`, () => {
    let one: ConnectedRedis;
    let two: ConnectedRedis;
    const prefix = () => `topology:${randomUUID()}:`;
    beforeAll(async () => {
      one = await connectRedis(library, place());
      two = await connectRedis(library, place());
    });
    afterAll(async () => {
      await one?.close();
      await two?.close();
    });

    describe('orderStoreContract (RedisOrderStore)', () => {
      for (const c of orderStoreContract(
        () => new RedisOrderStore(one.client as never, { prefix: prefix() }),
      )) {
        it(c.name, c.run);
      }
      it('two connections never both move one record', async () => {
        const p = prefix();
        const [a, b] = [
          new RedisOrderStore(one.client as never, { prefix: p }),
          new RedisOrderStore(two.client as never, { prefix: p }),
        ];
        const change = (value: string, version: number | null) => ({
          id: 'order:x',
          version,
          value,
          ttlMs: 60_000,
          listed: false,
        });
        await a.write([change('open', null)]);
        const answers = await Promise.all([
          ...Array.from({ length: 5 }, () => a.write([change('paid by a', 1)])),
          ...Array.from({ length: 5 }, () => b.write([change('paid by b', 1)])),
        ]);
        expect(answers.filter(Boolean)).toHaveLength(1);
        expect((await b.read('order:x'))?.version).toBe(2);
      });
    });

    describe('dedupeStoreContract', () => {
      for (const c of dedupeStoreContract(
        () => new RedisDedupeStore(one.client as never, { prefix: prefix() }),
      )) {
        it(c.name, c.run);
      }
    });

    it('lists kept notifications of every shard oldest first, across connections', async () => {
      const p = prefix();
      const writer = new RedisDedupeStore(one.client as never, { prefix: p });
      const reader = new RedisDedupeStore(two.client as never, { prefix: p });
      const records = Array.from({ length: 40 }, (_, i) =>
        kept(i.toString(16).padStart(64, '0'), 1000 + ((i * 7) % 40)),
      );
      for (const record of records) await writer.keep(record, 60_000);
      const byArrival = [...records].sort((a, b) => a.receivedAt - b.receivedAt).map((r) => r.key);
      expect((await reader.kept(100)).map((r) => r.key)).toEqual(byArrival);
      expect((await reader.kept(5)).map((r) => r.key)).toEqual(byArrival.slice(0, 5));
      // Completing one forgets it on whichever node holds it.
      await reader.claim(records[3]?.key as string, 10_000, { token: 't', trusted: true });
      await reader.complete(records[3]?.key as string, 60_000, { token: 't', trusted: true });
      expect((await writer.kept(100)).map((r) => r.key)).toEqual(
        byArrival.filter((k) => k !== records[3]?.key),
      );
    });

    it('RedisTokenStore stores, reads, expires and deletes token sets from either connection', async () => {
      const p = prefix();
      const store = new RedisTokenStore(one.client as never, { prefix: p, ttlMs: 60_000 });
      const other = new RedisTokenStore(two.client as never, { prefix: p });
      const users = ['alice', 'bobby', 'carol', 'dave', 'erin'];
      for (const user of users) await store.set(user, tokens(user));
      for (const user of users) expect(await other.get(user)).toMatchObject({ accessToken: `at-${user}` });
      await other.delete('alice');
      expect(await store.get('alice')).toBeUndefined();
      const short = new RedisTokenStore(one.client as never, { prefix: p, ttlMs: 30 });
      await short.set('brief', tokens('brief'));
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(await other.get('brief')).toBeUndefined();
    });

    it('RedisRefreshLock lets one holder in at a time across connections, per key', async () => {
      const p = prefix();
      const locks = [
        new RedisRefreshLock(one.client as never, { prefix: p }),
        new RedisRefreshLock(two.client as never, { prefix: p }),
      ];
      const inside = new Map<string, number>();
      let most = 0;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const user = `user-${i % 4}`;
          return locks[i % 2]?.withLock(user, 5000, async () => {
            inside.set(user, (inside.get(user) ?? 0) + 1);
            most = Math.max(most, inside.get(user) ?? 0);
            await new Promise((resolve) => setTimeout(resolve, 3));
            inside.set(user, (inside.get(user) ?? 0) - 1);
          });
        }),
      );
      expect(most).toBe(1);
    });
  });
}
