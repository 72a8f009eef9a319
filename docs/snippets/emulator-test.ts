// kudos.test.ts: your app's tests against the emulator, with vitest's defaults (`npx vitest run`):
// real HTTP servers on free ports, no network.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { type KudosNotification, kudosWebhook } from 'kudos-payments';
import { afterAll, beforeAll, expect, it } from 'vitest';

let kudos: KudosEmulator;
const received: KudosNotification[] = [];
// Your webhook receiver (here alone; in your tests, your app).
const receiver = createServer(
  kudosWebhook({ secret: 'test-secret-0123456789', onNotification: (n) => void received.push(n) }),
);

beforeAll(async () => {
  kudos = await startKudosEmulator({
    clients: [
      {
        clientID: 'my-app',
        clientSecret: 'my-secret',
        redirectURIs: ['http://localhost/auth/kudos/callback'],
      },
    ],
    users: [
      { id: 'alice', password: 'wonderland' },
      { id: 'bobby', password: 'builder' },
      { id: 'my-agent', password: 'agent-pw' },
    ],
    agents: [{ id: 'my-agent' }],
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  // What the Kudos operator sets up for a real agent: its webhook URL, with the secret in it.
  kudos.setWebhook('my-agent', `http://127.0.0.1:${port}/webhooks/kudos?token=test-secret-0123456789`);
  // Point your app at kudos.authURL and kudos.baseURL here.
});
afterAll(async () => {
  await kudos.close();
  receiver.close();
});

it('issues a code, and pays through the widget without a browser: the agent is notified', async () => {
  const { code } = kudos.authorize({ clientID: 'my-app', user: 'alice', scope: 'profile' });
  expect(code).toBeTruthy();
  const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'my-agent' });
  await kudos.idle(); // payment settled, notifications delivered
  expect(tx.status).toBe('success');
  expect(received.map((n) => [n.tx.txHash, n.tx.status, n.tx.amount.value])).toEqual([
    [tx.txHash, 'success', 2_000_000_000n], // 2 whole tokens = 2 * 10^9 nanokudos
  ]);
});
