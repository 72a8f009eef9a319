// A shop that takes payments through its agent account (the widget's `via`). The three things every
// shop must do are marked 1, 2 and 3.
import { randomBytes } from 'node:crypto';
import express from 'express';
import { SqliteDedupeStore } from 'passport-kudos/sqlite';
import { cosmosConfirmer, kudosWebhook } from 'passport-kudos/webhook';

const secret = process.env.KUDOS_WEBHOOK_SECRET; // required: kudosWebhook throws without it
if (!secret) throw new Error('set KUDOS_WEBHOOK_SECRET (16 characters or more)');
// 1. Your own wallet: only a payment that the chain shows going to it counts as paid.
const wallet = process.env.KUDOS_SHOP_WALLET;
if (!wallet) throw new Error("set KUDOS_SHOP_WALLET (your shop's cosmos1... address)");
const baseURL = process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api';
const authURL = process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000';

// Your orders (a database in real life): a random, single-use ID sent as the widget's `state`.
interface Order {
  price: bigint; // in nanokudos: 10^9 to a token
  paid: boolean;
  txHash?: string;
}
const orders = new Map<string, Order>();
const orderOf = (state: string | undefined, txHash: string) =>
  orders.get(state ?? '') ?? [...orders.values()].find((o) => o.txHash === txHash);

const hook = kudosWebhook({
  secret, // in the webhook URL (?token= or last path segment) or as the Basic password
  confirm: cosmosConfirmer({ baseURL, receiver: wallet }), // 1.
  // Durable: what the handler could not process survives a restart (several instances: Redis).
  store: new SqliteDedupeStore({ path: process.env.KUDOS_WEBHOOK_DB ?? 'kudos-webhook.db' }),
  onNotification: async (n) => {
    // 2. Compare what your wallet received with what the order costs (`n.tx.amount` is only what
    // the notification claims). At least once: crediting an order twice must change nothing.
    const order = orderOf(n.metadata.state, n.tx.txHash);
    if (order && n.paid && n.received >= order.price) {
      order.paid = true;
      console.log(`order paid: ${n.tx.txHash} ${n.received} ${n.tx.amount.denom}`);
    } else {
      console.log(`not credited: ${n.tx.txHash} ${n.tx.status} received=${n.received}`);
    }
  },
  onError: (error) => console.warn(`webhook refused: ${error.code}`), // never given the secret
});

const app = express();
app.post('/webhooks/kudos', hook);

// A new order and its widget link (in your app, an order of the signed-in user).
app.post('/orders', (_req, res) => {
  const id = randomBytes(16).toString('base64url');
  orders.set(id, { price: 2_000_000_000n, paid: false });
  const widget = new URL('/in/widget/pay', authURL);
  widget.search = new URLSearchParams({ to: 'bobby', amount: '2', via: 'shop-agent', state: id }).toString();
  res.json({ id, widget: widget.toString() });
});

// 3. The widget's return page: anyone can type its URL, with any transaction hash. Reconcile a hash
// only when it comes back with one of your open orders (of the signed-in user), and only once.
app.get('/paid', async (req, res) => {
  const { state, tx_hash: txHash } = req.query;
  const order = typeof state === 'string' ? orders.get(state) : undefined;
  if (!order || order.txHash || typeof txHash !== 'string' || !/^[0-9A-Fa-f]{64}$/.test(txHash)) {
    res.status(404).send('no such order');
    return;
  }
  order.txHash = txHash.toUpperCase(); // a reconciled record has no metadata: find the order by hash
  await hook
    .reconcile({ baseURL, txHash })
    .catch((error: unknown) => console.warn('reconcile failed', error));
  res.send(order.paid ? 'paid, thank you' : 'not confirmed yet');
});

app.listen(Number(process.env.PORT ?? 3001));

// What the handler could not process (it failed after the service stopped retrying, or the process
// crashed) is kept: run it again every five minutes.
setInterval(() => {
  hook.redrive().then(
    (r) => r.processed + r.failed > 0 && console.log(`redrive: ${JSON.stringify(r)}`),
    (error: unknown) => console.warn('redrive failed', error),
  );
}, 5 * 60_000).unref();
