// Payments apps: kudosWebhook() with cosmosConfirmer and a no-op handler (the baseline), or
// kudosPayments() crediting one order per notification (the decision, the order's compare-and-set,
// onPaid), on the same dedupe store (memory, SQLite in STORE_DIR, or Redis at REDIS_URL) and the same chain: a chain
// REST answer served by this process, which pays the shop and names notification i's order in its memo.
import express from 'express';
import { cosmosConfirmer, kudosPayments, kudosWebhook } from 'kudos-payments';
import { chainServer, msgSend, WALLETS } from '../../test/helpers/chain-answer.mjs';

const SECRET = 'bench-payments-secret-0123456789';
const SHOP = WALLETS.shop;
const PAYER = WALLETS.payer;
const ORDERS = Number(process.env.ORDERS ?? 1000);

/** Order i's reference, filled once kudosPayments made the orders (the baseline names none). */
const references = [];
const chain = chainServer((hash) => ({
  memo: `order ${references[Number.parseInt(hash, 16) - 1] ?? ''}`,
  messages: [msgSend(PAYER, SHOP, { denom: 'nanokudos', amount: '1000000000' })],
  height: '42',
}));
chain.keepAliveTimeout = 60_000;
await new Promise((resolve) => chain.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${chain.address().port}`;

let store;
let orders;
let close = async () => undefined;
if (process.env.STORE === 'sqlite') {
  const { SqliteDedupeStore } = await import('kudos-payments/sqlite');
  const path = `${process.env.STORE_DIR}/bench-payments-${process.pid}.db`;
  store = new SqliteDedupeStore({ path }); // synchronous full, the default
  orders = store.orderStore(); // the same file
  close = async () => {
    store.close();
    orders.close();
  };
} else if (process.env.STORE === 'redis') {
  const { createClient } = await import('redis');
  const { RedisDedupeStore, RedisOrderStore } = await import('kudos-payments/redis');
  const client = createClient({ url: process.env.REDIS_URL });
  await client.connect();
  const prefix = process.env.REDIS_PREFIX;
  store = new RedisDedupeStore(client, { prefix: `${prefix}dedupe:` });
  orders = new RedisOrderStore(client, { prefix: `${prefix}orders:` });
  close = () => client.quit();
}

let handled = 0;
let receiver;
if (process.env.MODE === 'payments') {
  const payments = kudosPayments({
    secret: SECRET,
    authURL: baseURL,
    baseURL,
    wallet: SHOP,
    shopUser: 'shop',
    agent: 'shop-agent',
    store,
    orders,
    onPaid: () => void handled++,
  });
  for (let i = 0; i < ORDERS; i++)
    references.push((await payments.createOrder({ amount: '1' })).order.reference);
  receiver = payments.webhook;
} else {
  receiver = kudosWebhook({
    secret: SECRET,
    confirm: cosmosConfirmer({ baseURL, wallet: SHOP }),
    store,
    onNotification: (n) => {
      if (n.paid) handled++;
    },
  });
}

const app = express();
app.post('/hook', receiver);
const server = app.listen(0, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
server.keepAliveTimeout = 60_000;
process.on('SIGTERM', () =>
  close().finally(() => {
    if (handled === 0) console.error('payments bench: nothing was credited');
    process.exit(0);
  }),
);
