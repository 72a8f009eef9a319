// REDIS_URL: sessions (connect-redis), webhook dedupe, the refresh lock, token sets and the payments
// list live in Redis, so several instances of the app behind one address share them.
import { RedisStore } from 'connect-redis';
import { RedisDedupeStore, RedisRefreshLock, RedisTokenStore } from 'passport-kudos/redis';
import { createClient } from 'redis';

const PAYMENTS_KEY = 'kudos-example:payments';

/**
 * @param {string} url
 * @param {(line: string) => void} [log]
 * @returns {Promise<import('./stores.js').ExampleStores>}
 */
export async function redisStores(url, log = () => undefined) {
  const client = createClient({
    url,
    // Fail at once while Redis is unreachable instead of queueing commands: the webhook then
    // answers 503 (Kudos retries) and pages show a clear error, rather than hanging.
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1000) },
  });
  let down = false;
  client.on('error', (error) => {
    if (!down) log(`redis unavailable: ${error?.code ?? error?.name ?? 'error'}`);
    down = true;
  });
  client.on('ready', () => {
    if (down) log('redis available again');
    down = false;
  });
  await client.connect();
  return {
    session: new RedisStore({ client, prefix: 'kudos-example:sess:' }),
    tokens: new RedisTokenStore(client, { prefix: 'kudos-example:tokens:' }),
    dedupe: new RedisDedupeStore(client, { prefix: 'kudos-example:webhook:' }),
    lock: new RedisRefreshLock(client, { prefix: 'kudos-example:lock:' }),
    payments: {
      async add(payment) {
        await client.lPush(PAYMENTS_KEY, JSON.stringify(payment));
        await client.lTrim(PAYMENTS_KEY, 0, 199);
      },
      async list() {
        return (await client.lRange(PAYMENTS_KEY, 0, 199)).map((line) => JSON.parse(line));
      },
    },
    async close() {
      await client.close().catch(() => client.destroy());
    },
  };
}
