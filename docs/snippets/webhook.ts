// Receive payment notifications for your agent account (payments made with the widget's `via`).
import express from 'express';
import { cosmosConfirmer, type KudosNotification, kudosWebhook } from 'passport-kudos/webhook';

const secret = process.env.KUDOS_WEBHOOK_SECRET; // required: kudosWebhook throws without it
if (!secret) throw new Error('set KUDOS_WEBHOOK_SECRET (16 characters or more)');

async function recordPayment(n: KudosNotification): Promise<void> {
  // Idempotent by n.key (txHash:status); the receiver already runs each key once.
  console.log(`${n.tx.txHash} ${n.tx.status} ${n.tx.amount.value} ${n.tx.amount.denom} paid=${n.paid}`);
}

const app = express();
app.post(
  '/webhooks/kudos',
  kudosWebhook({
    secret, // in the webhook URL (?token= or last path segment) or as the Basic password
    confirm: cosmosConfirmer({ baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api' }),
    onNotification: async (n) => {
      if (n.paid) await recordPayment(n); // only a confirmed success is paid
    },
    onError: (error) => console.warn(`webhook refused: ${error.code}`), // never given the secret
  }),
);
app.listen(Number(process.env.PORT ?? 3001));
