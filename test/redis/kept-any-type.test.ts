import http from 'node:http';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KudosRefusal, kudosWebhook } from '../../packages/kudos-payments/src/index.js';
import { dedupeKeys } from '../../packages/kudos-payments/src/redis/dedupe-keys.js';
import { RedisDedupeStore } from '../../packages/kudos-payments/src/redis/index.js';
import { listenLocal } from '../helpers/listen.js';
import { sharedRedis } from '../helpers/redis-server.js';
import { deliver } from '../helpers/webhook-app.js';

// A kept record's key that holds a hash or a list (another program's key, a hand edit), against a real
// redis-server: the delivery of its payment is processed, the key replaced, and told once; never
// answered 503 WRONGTYPE at every redelivery.

const SECRET = 'kept-any-type-secret-0123';

describe('a kept-record key of another type', () => {
  let redis: Awaited<ReturnType<typeof sharedRedis>>;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await sharedRedis();
    client = createClient({ url: redis.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.quit();
    await redis?.close();
  });

  it.each(['hash', 'list', 'set'])(
    'a %s at the key: replaced, told once, the payment processed',
    async (kind) => {
      const prefix = `kept-type:${kind}:${Date.now()}:`;
      const hash = `${kind === 'hash' ? 'A' : kind === 'list' ? 'B' : 'C'}`.repeat(64);
      const key = `${hash}:success`;
      const { kept } = dedupeKeys(prefix, key);
      if (kind === 'hash') await client.hSet(kept, { field: 'value' });
      else if (kind === 'list') await client.rPush(kept, ['a', 'b']);
      else await client.sAdd(kept, ['a']);
      const handled: string[] = [];
      const errors: KudosRefusal[] = [];
      const hook = kudosWebhook({
        secret: SECRET,
        store: new RedisDedupeStore(client, { prefix }),
        onNotification: (n) => {
          handled.push(n.key);
        },
        onError: (error) => {
          errors.push(error);
        },
      });
      const server = await listenLocal(http.createServer((req, res) => hook(req, res)));
      try {
        const body = {
          tx: { txHash: hash, status: 'success', amount: { amount: '1', denom: 'nanokudos' } },
          metadata: {},
        };
        const first = await deliver(`${server.url}?token=${SECRET}`, body);
        expect(first.status).toBe(200);
        expect(handled).toEqual([key]);
        expect(errors.map((e) => e.code)).toEqual(['kept_unreadable']);
        expect(errors[0]?.message).toContain(kept);
        // Done: the key of another type is gone, and a redelivery is a duplicate.
        expect(await client.type(kept)).toBe('none');
        expect((await deliver(`${server.url}?token=${SECRET}`, body)).json.duplicate).toBe(true);
        expect(errors).toHaveLength(1);
        expect(await hook.unprocessed()).toEqual([]);
      } finally {
        await server.close();
      }
    },
  );
});
