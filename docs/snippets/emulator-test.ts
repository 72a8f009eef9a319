// Your app's tests against the emulator: vitest, a real HTTP server, no network.
import { type KudosEmulator, startKudosEmulator } from 'passport-kudos/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

let kudos: KudosEmulator;
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
    agents: [
      { id: 'my-agent', webhookURL: 'http://127.0.0.1:3001/webhooks/kudos?token=test-secret-0123456789' },
    ],
  });
  // Point your app at kudos.authURL and kudos.baseURL here.
});
afterAll(() => kudos.close());

it('issues a code and pays through the widget without a browser', async () => {
  const { code } = kudos.authorize({ clientID: 'my-app', user: 'alice', scope: 'profile' });
  expect(code).toBeTruthy();
  const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'my-agent' });
  await kudos.idle(); // payment settled, notifications delivered (or given up)
  expect(tx.status).toBe('success');
});
