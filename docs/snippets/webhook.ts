// The low-level receiver: kudosWebhook() hands you each notification once, confirmed on the chain.
// Matching a payment to an order is then yours: kudosPayments() (the README) does it for you.
import express from 'express';
import { cosmosConfirmer, kudosWebhook } from 'kudos-payments';
import { SqliteDedupeStore } from 'kudos-payments/sqlite';

const secret = process.env.KUDOS_WEBHOOK_SECRET; // required: kudosWebhook throws without it
if (!secret) throw new Error('set KUDOS_WEBHOOK_SECRET (16 characters or more)');
const wallet = process.env.KUDOS_SHOP_WALLET; // required by cosmosConfirmer
if (!wallet) throw new Error("set KUDOS_SHOP_WALLET (your shop's wallet, kudos1... or cosmos1...)");

const hook = kudosWebhook({
  secret,
  confirm: cosmosConfirmer({
    restURL: process.env.KUDOS_CHAIN_URL ?? 'http://127.0.0.1:4000/chain', // a chain node's REST interface
    wallet,
  }),
  store: new SqliteDedupeStore({ path: process.env.KUDOS_WEBHOOK_DB ?? 'kudos-webhook.db' }),
  onNotification: async (n) => {
    // paid: the chain shows a `success` reaching your wallet, in nanokudos; received: how much (a
    // bigint); memo: the memo as the chain records it. Everything else in `n` is what the
    // notification says. At least once: make this idempotent by txHash.
    if (n.paid) console.log(`paid: ${n.tx.txHash} ${n.received} memo=${n.memo}`);
    else console.log(`not paid: ${n.tx.txHash} ${n.tx.status} (${n.confirmationReason ?? 'no reason'})`);
  },
  onError: (error) => console.warn(`webhook refused: ${error.code}`),
});

const app = express();
app.post('/webhooks/kudos', hook);
app.listen(Number(process.env.PORT ?? 3001));

setInterval(() => {
  hook.redrive().catch((error: unknown) => console.warn('redrive failed', error));
}, 5 * 60_000).unref();
