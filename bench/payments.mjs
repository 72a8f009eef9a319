// 12. Payments API: kudosPayments() (orders: the decision, the order's compare-and-set, onPaid)
// against kudosWebhook() with cosmosConfirmer alone, on the same store and the same chain answer.
import { WALLETS } from '../test/helpers/chain-answer.mjs';
import { benchRedisServer } from './lib/redis.mjs';
import { runnable } from './lib/sqlite.mjs';
import { measureReceiver, measureVariants } from './lib/variants.mjs';

const SECRET = 'bench-payments-secret-0123456789';
const SHOP = WALLETS.shop;
const PAYER = WALLETS.payer;

/** Notification i: a distinct hash (i + 1, zero-padded), one token to the shop from the payer. */
function body(i) {
  return JSON.stringify({
    tx: {
      txHash: (i + 1).toString(16).toUpperCase().padStart(64, '0'),
      status: 'success',
      from: PAYER,
      fromId: 'payer',
      to: SHOP,
      toId: 'shop',
      remarks: 'order',
      type: 'cosmosTransfer',
      amount: { amount: '1000000000', denom: 'nanokudos' },
    },
    metadata: { kudosPay: { agentId: 'shop-agent', amounts: ['1'], toIds: ['shop'] } },
  });
}

/** @param {{ runs: number, amount: number, warmup: number }} options */
export async function benchPayments({ runs, amount, warmup }) {
  const variants = [
    { name: 'kudosWebhook + cosmosConfirmer, in-memory store (baseline)', mode: 'webhook', store: 'memory' },
    { name: 'kudosPayments, in-memory stores', mode: 'payments', store: 'memory' },
    {
      name: 'kudosWebhook + cosmosConfirmer, SQLite store (baseline)',
      mode: 'webhook',
      store: 'sqlite',
      sqlite: true,
    },
    {
      name: 'kudosPayments, SQLite stores (one file: store.orderStore())',
      mode: 'payments',
      store: 'sqlite',
      sqlite: true,
    },
  ];
  // Redis (node-redis, one server of the bench's own, noeviction) when redis-server is installed.
  const redis = await benchRedisServer();
  if (redis) {
    variants.push(
      { name: 'kudosWebhook + cosmosConfirmer, Redis store (baseline)', mode: 'webhook', store: 'redis' },
      {
        name: 'kudosPayments, Redis stores (RedisDedupeStore, RedisOrderStore)',
        mode: 'payments',
        store: 'redis',
      },
    );
  }
  let measured = 0;
  try {
    return await measureVariants(runnable(variants), runs, (v, storeDir) =>
      measureReceiver({
        app: 'payments',
        env: {
          MODE: v.mode,
          STORE: v.store,
          STORE_DIR: storeDir,
          ORDERS: String(amount + warmup),
          // Each measurement's keys apart: no run finds another's notifications done.
          ...(redis ? { REDIS_URL: redis.url, REDIS_PREFIX: `bench-payments:${measured++}:` } : {}),
        },
        path: `/hook?token=${SECRET}`,
        body,
        amount,
        warmup,
      }),
    );
  } finally {
    await redis?.stop();
  }
}
