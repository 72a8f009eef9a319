// Fragment: the Redis part of an app of several instances (sessions, payments, token sets, the refresh
// lock), where the quick start creates its session, strategy and webhook (its sign-in routes as they are).
import { randomBytes } from 'node:crypto';
import { RedisStore } from 'connect-redis';
import express from 'express';
import session from 'express-session';
import { kudosPayments } from 'kudos-payments';
import { RedisDedupeStore, RedisOrderStore } from 'kudos-payments/redis';
import { createKudosClient, KudosStrategy } from 'passport-kudos';
import { RedisRefreshLock, RedisTokenStore } from 'passport-kudos/redis';
import { createClient } from 'redis';

const redis = createClient({
  url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  disableOfflineQueue: true,
});
// Without an 'error' listener a Redis outage ends the process; with it, the stores answer 503
// (store_unavailable) while the client reconnects.
redis.on('error', (error: Error) => console.warn(`redis: ${error.message}`));
await redis.connect();
// Sessions in another Redis, with a memory limit and an evicting policy of their own: never the one
// payments keep their keys in (it must never evict, and the stores refuse one that may).
const sessions = createClient({ url: process.env.REDIS_SESSIONS_URL ?? 'redis://127.0.0.1:6380' });
sessions.on('error', (error: Error) => console.warn(`sessions redis: ${error.message}`));
await sessions.connect();

const tokens = new RedisTokenStore(redis);
const strategy = new KudosStrategy(
  {
    clientID: process.env.KUDOS_CLIENT_ID ?? 'kudos-demo-client',
    clientSecret: process.env.KUDOS_CLIENT_SECRET ?? 'kudos-demo-secret',
    callbackURL: 'https://shop.example/auth/kudos/callback',
    authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000',
    baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api',
  },
  (_accessToken, _refreshToken, profile, done) => done(null, { id: profile.id, name: profile.displayName }),
);
export const kudos = createKudosClient({ strategy, tokens, lock: new RedisRefreshLock(redis) });

const app = express();
const payments = kudosPayments({
  secret: process.env.KUDOS_WEBHOOK_SECRET ?? 'change-me-0123456789',
  authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000',
  baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api',
  restURL: process.env.KUDOS_CHAIN_URL ?? 'http://127.0.0.1:4000/chain', // a chain node's REST interface
  // Your wallet in either spelling (here the emulator's bobby's, kudos1… = cosmos1…, the same account).
  wallet: process.env.KUDOS_SHOP_WALLET ?? 'kudos10w0466xcvg0sgfhynvj5nlcdzhqzrnc4gkegml',
  shopUser: 'bobby',
  agent: 'shop-agent',
  store: new RedisDedupeStore(redis), // one notification is handled once across all instances
  orders: new RedisOrderStore(redis), // one order is credited once across all instances
  onPaid: async ({ order }) => console.log(`paid: ${order.reference}`),
});
app.post('/webhooks/kudos', payments.webhook);
app.use(
  session({
    store: new RedisStore({ client: sessions, prefix: 'sess:' }),
    secret: process.env.SESSION_SECRET ?? randomBytes(32).toString('base64url'),
    resave: false,
    saveUninitialized: false,
  }),
);
