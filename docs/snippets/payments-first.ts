// shop.ts: a first shop with kudos-payments alone (no Passport): an order's widget link, the
// notifications, onPaid once the chain shows the order paid to your wallet, and the return page.
import express from 'express';
import { kudosPayments } from 'kudos-payments';

const port = Number(process.env.PORT ?? 3001);
const shopURL = process.env.SHOP_URL ?? `http://localhost:${port}`;
const payments = kudosPayments({
  secret: process.env.KUDOS_WEBHOOK_SECRET ?? 'the-webhook-secret-of-your-agent', // in the webhook URL (?token=...)
  authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000', // the Kudos pages (here: npx kudos-emulator)
  baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api', // the Kudos API
  restURL: process.env.KUDOS_CHAIN_URL ?? 'http://127.0.0.1:4000/chain', // a chain node's REST interface
  wallet: process.env.KUDOS_SHOP_WALLET ?? 'kudos10w0466xcvg0sgfhynvj5nlcdzhqzrnc4gkegml', // only what reaches it counts
  shopUser: 'bobby', // your Kudos user (a user ID), whose wallet that is
  agent: 'shop-agent', // your agent, with the webhook
  onPaid: async ({ order, txHash }) => console.log(`paid: ${order.reference} ${txHash}`),
});

const app = express();
app.post('/webhooks/kudos', payments.webhook);
app.post('/orders', async (_req, res, next) => {
  try {
    const { order, url } = await payments.createOrder({ amount: '2', redirectURI: `${shopURL}/paid` });
    res.json({ reference: order.reference, widget: url });
  } catch (error) {
    next(error);
  }
});
// Where the widget sends the payer back (?state=REFERENCE&tx_hash=HASH). Anyone can type this URL with
// any hash: the answer is only ever about the order it names, as the chain shows it.
app.get('/paid', async (req, res, next) => {
  try {
    const { status } = await payments.check({
      reference: String(req.query.state),
      txHash: String(req.query.tx_hash),
    });
    res.status(status === 'unknown_order' ? 404 : 200).send(status === 'paid' ? 'paid, thank you' : status);
  } catch (error) {
    next(error);
  }
});
app.listen(port, () => console.log(`shop on ${shopURL}`));
