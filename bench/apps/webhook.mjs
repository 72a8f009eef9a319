// Webhook receiver apps: kudosWebhook (parse, validate, dedupe, handler) with the in-memory, the
// SQLite (a fresh file in STORE_DIR) or the Redis dedupe store, and a bare express.json() route that
// only answers 200 (the baseline); SUBSCRIBE adds a subscriber of the tracing channels (./subscribe.mjs).
import express from 'express';
import { kudosWebhook } from 'kudos-payments';
import './subscribe.mjs';

const app = express();
let handled = 0;
let close = async () => undefined;
if (process.env.MODE === 'bare') {
  app.post('/hook', express.json(), (_req, res) => {
    handled++;
    res.sendStatus(200);
  });
} else {
  let store;
  if (process.env.MODE === 'kudos-redis') {
    const { createClient } = await import('redis');
    const { RedisDedupeStore } = await import('kudos-payments/redis');
    const client = createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true });
    await client.connect();
    store = new RedisDedupeStore(client, { prefix: `bench:${process.pid}:` });
    close = () => client.close();
  }
  if (process.env.MODE?.startsWith('kudos-sqlite')) {
    const { SqliteDedupeStore } = await import('kudos-payments/sqlite');
    const synchronous = process.env.MODE === 'kudos-sqlite-normal' ? 'normal' : 'full';
    const path = `${process.env.STORE_DIR}/bench-${process.pid}.db`;
    store = new SqliteDedupeStore({ path, synchronous });
    close = async () => store.close();
  }
  app.post('/hook', kudosWebhook({ store, secret: false, onNotification: () => void handled++ }));
}
const server = app.listen(0, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
server.keepAliveTimeout = 60_000;
process.on('SIGTERM', () => close().finally(() => process.exit(0)));
