// REDIS_URL (one server) or REDIS_CLUSTER_NODES (a Redis Cluster): webhook dedupe, orders, the refresh
// lock, token sets and the payments list live in Redis, so several instances of the app behind one
// address share them. Sessions live in another Redis, REDIS_SESSIONS_URL (connect-redis): the payments'
// Redis must never evict (its stores refuse one that may), so what visitors can fill must not share its
// memory; a sessions' Redis has a limit and an evicting policy of its own. Without it, each instance keeps
// its sessions in memory (a sign-in still works across instances: its state rides in a cookie).
import { RedisStore } from 'connect-redis';
import { RedisDedupeStore, RedisOrderStore } from 'kudos-payments/redis';
import { RedisRefreshLock, RedisTokenStore } from 'passport-kudos/redis';
import { createClient, createCluster } from 'redis';
import { BoundedMemoryStore, MAX_SESSIONS_PER_ACCOUNT } from './session-store.js';

// One hash tag for both keys of the payments list: the script that writes them runs on one
// cluster node.
const PAYMENTS_KEY = '{kudos-example:payments}';

// Saves a payment row (KEYS[1] field ARGV[1]) once: kudosPayments() decides each transaction once,
// so the first row stands.
const ADD_PAYMENT = `if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1`;

// Fail at once while Redis is unreachable instead of queueing commands: the webhook then answers
// 503 (Kudos retries) and pages show a clear error, rather than hanging.
const CONNECTION = {
  disableOfflineQueue: true,
  socket: {
    connectTimeout: 2000,
    reconnectStrategy: (/** @type {number} */ retries) => Math.min(50 * 2 ** retries, 1000),
  },
};

/**
 * A node-redis client for one server (`url`) or a cluster (`clusterNodes`, its seed nodes).
 * @param {{ url?: string, clusterNodes?: string[] }} where
 */
function connectTo({ url, clusterNodes }) {
  if (clusterNodes) {
    return createCluster({
      rootNodes: clusterNodes.map((node) => ({ url: `redis://${node}` })),
      defaults: CONNECTION,
    });
  }
  return createClient({ url, ...CONNECTION });
}

/**
 * connect-redis that keeps at most MAX_SESSIONS_PER_ACCOUNT sessions of one account: each account's
 * session IDs in a sorted set (by when saved), and a sign-in beyond the cap ends the oldest. The
 * sessions' Redis bounds them in all (its own memory limit and evicting policy).
 */
class AccountCappedRedisStore extends RedisStore {
  /** @param {{ client: any, prefix: string }} options */
  constructor(options) {
    super(options);
    this.redisClient = options.client;
  }

  /** @param {string} sid @param {any} sess @param {(err?: unknown) => void} [cb] */
  async set(sid, sess, cb) {
    const user = sess?.passport?.user;
    if (user === undefined) return super.set(sid, sess, cb);
    try {
      await super.set(sid, sess);
      const account = `kudos-example:acct:${typeof user === 'string' ? user : JSON.stringify(user)}`;
      await this.redisClient.zAdd(account, { score: Date.now(), value: sid });
      await this.redisClient.expire(account, 86_400);
      const beyond = await this.redisClient.zRange(account, 0, -(MAX_SESSIONS_PER_ACCOUNT + 1));
      for (const old of beyond) await this.destroy(old);
      if (beyond.length > 0) await this.redisClient.zRem(account, beyond);
      cb?.();
    } catch (error) {
      cb?.(error);
    }
  }
}

/**
 * The sessions' store: connect-redis on REDIS_SESSIONS_URL, else each instance's bounded memory store.
 * @param {string | undefined} url
 * @param {(line: string) => void} log
 */
async function sessionStore(url, log) {
  if (!url) {
    log(
      "sessions: in this instance's memory (set REDIS_SESSIONS_URL, another Redis than REDIS_URL, to share them)",
    );
    return { store: new BoundedMemoryStore(), close: async () => {} };
  }
  const sessionsClient = createClient({ url, ...CONNECTION });
  sessionsClient.on('error', (/** @type {any} */ error) =>
    log(`sessions redis unavailable: ${error?.code ?? 'error'}`),
  );
  await sessionsClient.connect();
  return {
    store: new AccountCappedRedisStore({ client: sessionsClient, prefix: 'kudos-example:sess:' }),
    close: () => sessionsClient.close().catch(() => sessionsClient.destroy()),
  };
}

/**
 * @param {{ url?: string, clusterNodes?: string[], sessionsURL?: string }} where
 * @param {(line: string) => void} [log]
 * @returns {Promise<import('./stores.js').ExampleStores>}
 */
export async function redisStores(where, log = () => undefined) {
  const sessions = await sessionStore(where.sessionsURL, log);
  const client = connectTo(where);
  let down = false;
  /** @param {any} error */
  const unavailable = (error) => {
    if (!down) log(`redis unavailable: ${error?.code ?? error?.name ?? 'error'}`);
    down = true;
  };
  client.on('error', unavailable);
  client.on('node-error', unavailable);
  client.on('ready', () => {
    if (down) log('redis available again');
    down = false;
  });
  await client.connect();
  return {
    session: sessions.store,
    tokens: new RedisTokenStore(client, { prefix: 'kudos-example:tokens:' }),
    dedupe: new RedisDedupeStore(client, { prefix: 'kudos-example:webhook:' }),
    orders: new RedisOrderStore(client, { prefix: 'kudos-example:orders:' }),
    lock: new RedisRefreshLock(client, { prefix: 'kudos-example:lock:' }),
    openTips: {
      async get(key) {
        const json = await client.get(`kudos-example:tip:${key}`);
        return json ? JSON.parse(json) : undefined;
      },
      async set(key, tip, ttlMs) {
        await client.set(`kudos-example:tip:${key}`, JSON.stringify(tip), {
          PX: Math.max(1, Math.floor(ttlMs)),
        });
      },
    },
    payments: {
      // Idempotent by transaction: one hash field per transaction, and a sorted set for the order.
      async add(payment) {
        // One script: two instances cannot interleave.
        await client.eval(ADD_PAYMENT, {
          keys: [`${PAYMENTS_KEY}:rows`, PAYMENTS_KEY],
          arguments: [payment.txHash, JSON.stringify(payment), String(Date.parse(payment.receivedAt))],
        });
      },
      async list() {
        const hashes = await client.zRange(PAYMENTS_KEY, 0, 199, { REV: true });
        if (hashes.length === 0) return [];
        const rows = await client.hmGet(`${PAYMENTS_KEY}:rows`, hashes);
        return rows.filter((row) => typeof row === 'string').map((row) => JSON.parse(row));
      },
    },
    async close() {
      await client.close().catch(() => client.destroy());
      await sessions.close();
    },
  };
}
