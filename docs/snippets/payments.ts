// A shop that sells through the Kudos payment widget. kudosPayments() makes each order's widget link,
// receives the notifications, and calls onPaid once an order is paid: in full, to your own wallet, by
// a transaction that names that order. Whatever path brings the payment, it is decided the same way.
import express from 'express';
import { kudosPayments } from 'kudos-payments';
import { SqliteDedupeStore } from 'kudos-payments/sqlite';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}
const shopURL = process.env.SHOP_URL ?? 'http://localhost:3001';
// Durable: notifications, orders and decisions survive a restart, in one SQLite file (several
// instances: RedisDedupeStore and RedisOrderStore).
const store = new SqliteDedupeStore({ path: process.env.KUDOS_PAYMENTS_DB ?? 'kudos-payments.db' });

const payments = kudosPayments({
  secret: required('KUDOS_WEBHOOK_SECRET'), // in the webhook URL (?token=...) or as the Basic password
  authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000',
  baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api',
  restURL: process.env.KUDOS_CHAIN_URL ?? 'http://127.0.0.1:4000/chain', // a chain node's REST interface
  wallet: required('KUDOS_SHOP_WALLET'), // your wallet, kudos1... or cosmos1... (one account): only what reaches it counts
  shopUser: process.env.KUDOS_SHOP_USER ?? 'bobby', // your Kudos user, whose wallet that is (the link's `to`)
  agent: process.env.KUDOS_AGENT ?? 'shop-agent', // your agent, with the webhook (the link's `via`)
  store,
  orders: store.orderStore(), // the orders, in the same file
  onPaid: async ({ order, txHash, received }) => {
    // Once per order (again only if this throws): ship it. Fields: docs/payments.md#the-order-and-the-payment
    console.log(`order paid: ${order.data.item} ${order.reference} ${txHash} ${received}`);
  },
  onException: async ({ reason, txHash, received }) => {
    // Money that reached you and pays no order (underpaid, paid twice, expired...): refund it or
    // look at it; listed by payments.exceptions() until payments.acknowledge(txHash).
    console.log(`payment to look at: ${reason} ${txHash} ${received}`);
  },
  // A refused or failed notification, or money that went elsewhere (not_to_wallet): never given the secret.
  onError: (error) => console.warn(`kudos payments: ${error.code}: ${error.message}`),
});

const app = express();
app.post('/webhooks/kudos', payments.webhook);

// A new order and the widget link that pays it (in your app: an order of the signed-in user, with
// `user: <their Kudos ID>` so that only they can pay it).
// Errors go to next(): Express 4 does not catch a rejected async route (the store down would end the
// process); Express 5 does the same for you.
app.post('/orders', async (_req, res, next) => {
  try {
    const { order, url } = await payments.createOrder({
      amount: '2', // whole tokens, as the widget takes them
      redirectURI: `${shopURL}/paid`, // on your agent's payment redirect whitelist
      data: { item: 'mug' },
    });
    res.json({ reference: order.reference, widget: url });
  } catch (error) {
    next(error);
  }
});

// The widget's return page. Anyone can type its URL with any hash: the answer is only ever about the
// order it names, and a hash that pays another order credits that one, never this.
const ANSWERS = {
  paid: 'paid, thank you: we are preparing your order',
  pending: 'not confirmed yet',
  not_this_order: 'this payment is not for this order',
  unknown_order: 'no such order',
};
app.get('/paid', async (req, res, next) => {
  const { state, tx_hash: txHash } = req.query;
  try {
    const { status } = await payments.check({ reference: String(state), txHash: String(txHash) });
    // `paid` is decided; the order is `fulfilled` once onPaid has run for it.
    const shipped = status === 'paid' && (await payments.order(String(state)))?.status === 'fulfilled';
    res
      .status(status === 'unknown_order' ? 404 : 200)
      .send(shipped ? 'paid, thank you: it is on its way' : ANSWERS[status]);
  } catch (error) {
    next(error); // the store is down: Express answers 500, and the process lives on
  }
});

app.listen(Number(process.env.PORT ?? 3001));

// What could not be processed is kept: redrive() runs it again (a failure after the service stopped
// retrying, a crash); a payment made while the shop was down is on the chain: reconcileChain(). Each
// at start and on a timer (a run going on is joined; a held one, told once, runs when its lease ends).
const upkeep = (what: string, run: () => Promise<unknown>) => () =>
  void run().catch((error: unknown) => console.warn(`${what} failed`, error));
const redrive = upkeep('redrive', () => payments.redrive());
const fromChain = upkeep('reconcile from the chain', () => payments.reconcileChain());
redrive();
fromChain();
setInterval(redrive, 5 * 60_000).unref();
setInterval(fromChain, 60_000).unref();
