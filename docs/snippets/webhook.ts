// Receive payment notifications for your agent account (payments made with the widget's `via`).
import express from 'express';
import { cosmosConfirmer, type KudosNotification, kudosWebhook } from 'passport-kudos/webhook';

const secret = process.env.KUDOS_WEBHOOK_SECRET; // required: kudosWebhook throws without it
if (!secret) throw new Error('set KUDOS_WEBHOOK_SECRET (16 characters or more)');

async function recordPayment(n: KudosNotification): Promise<void> {
  // At least once: make this idempotent by n.key (txHash:status), e.g. an upsert keyed by it.
  console.log(`${n.tx.txHash} ${n.tx.status} ${n.tx.amount.value} ${n.tx.amount.denom} paid=${n.paid}`);
}

const hook = kudosWebhook({
  secret, // in the webhook URL (?token= or last path segment) or as the Basic password
  confirm: cosmosConfirmer({ baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api' }),
  onNotification: async (n) => {
    if (n.paid) await recordPayment(n); // only a confirmed success is paid
  },
  onError: (error) => console.warn(`webhook refused: ${error.code}`), // never given the secret
});

const app = express();
app.post('/webhooks/kudos', hook);
app.listen(Number(process.env.PORT ?? 3001));

// What the handler could not process (it failed after the service stopped retrying, or the process
// crashed) is kept: run it again every five minutes.
setInterval(() => {
  hook.redrive().then(
    (r) => r.processed + r.failed > 0 && console.log(`redrive: ${JSON.stringify(r)}`),
    (error: unknown) => console.warn('redrive failed', error),
  );
}, 5 * 60_000).unref();
