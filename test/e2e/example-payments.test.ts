import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from '../../example/start.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { formFields, passAuthorization } from '../helpers/emulator-user.js';
import { exampleEnv } from '../helpers/example-env.js';

// The example's payments: a tip is recorded even when its notification never arrives (the return
// page reconciles the hash), and what the handler could not process is listed with a Retry button.
describe('example app: no tip is lost (real HTTP, embedded emulator)', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  beforeAll(async () => {
    example = await startExample(exampleEnv({ SESSION_SECRET: 'payments-test-session-secret' }));
  });
  afterAll(() => example.close());

  /** Signs alice in at the example, opens the tip widget from her profile and confirms; answers the return page. */
  async function tip(client: CookieClient): Promise<{ txHash: string; page: string }> {
    const back = await passAuthorization(client, locationOf(await client.get(`${example.url}/auth/kudos`)));
    await client.get(locationOf(back));
    const profile = await (await client.get(`${example.url}/profile`)).text();
    const tipURL = (/id="tip" href="([^"]+)"/.exec(profile)?.[1] ?? '').replaceAll('&amp;', '&');
    const widget = await (await client.get(tipURL)).text();
    const confirm = await client.postForm(new URL('/in/widget/pay', tipURL).toString(), {
      ...formFields(widget, '/in/widget/pay'),
      decision: 'confirm',
    });
    const done = locationOf(confirm);
    const page = await (await client.get(done)).text();
    return { txHash: done.searchParams.get('tx_hash') ?? '', page };
  }

  async function paymentsPage(client: CookieClient): Promise<string> {
    return (await client.get(`${example.url}/payments`)).text();
  }

  it('records a tip whose notification never arrives: the return page reconciles its hash', async () => {
    const agent = example.config.agentID;
    example.emulator?.setWebhook(agent, undefined); // the notification is lost
    try {
      const client = new CookieClient();
      const { txHash, page } = await tip(client);
      expect(page).toContain(txHash);
      await example.emulator?.idle();
      expect(example.emulator?.deliveries.filter((d) => d.txHash === txHash)).toEqual([]);
      const rows = (await paymentsPage(client))
        .split('<tr class="payment">')
        .filter((r) => r.includes(txHash.slice(0, 12)));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('success');
      expect(rows[0]).toContain('<td class="paid">paid</td>');
      expect(rows[0]).toContain('<td class="received">1 KUDOS</td>');
    } finally {
      example.emulator?.setWebhook(
        agent,
        `http://127.0.0.1:${example.port}/webhooks/kudos?token=${example.config.webhookSecret}`,
      );
    }
  });

  it('lists a notification the handler could not process, and Retry processes it once', async () => {
    const add = example.stores.payments.add.bind(example.stores.payments);
    let outage = true;
    example.stores.payments.add = async (payment) => {
      if (outage) throw new Error('payments database unavailable');
      return add(payment);
    };
    const client = new CookieClient();
    const back = await passAuthorization(client, locationOf(await client.get(`${example.url}/auth/kudos`)));
    await client.get(locationOf(back));
    const tx = example.emulator?.pay({
      from: 'alice',
      to: 'bobby',
      amount: '2',
      via: example.config.agentID,
    });
    const hash = tx?.txHash ?? '';
    await tx?.settled;
    let page = '';
    for (let i = 0; i < 200 && !page.includes(hash.slice(0, 12)); i++) {
      page = await paymentsPage(client);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(page).toContain('id="unprocessed"');
    expect(page).toContain('payments database unavailable');
    outage = false;
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const retried = await client.postForm(`${example.url}/payments/retry`, { csrf });
    expect(retried.status).toBe(303);
    const after = await paymentsPage(client);
    expect(after).toContain('id="retried"');
    expect(after).toContain('id="no-unprocessed"');
    await example.emulator?.idle(); // the sender's own retry, if any, is a duplicate
    const rows = (await paymentsPage(client))
      .split('<tr class="payment">')
      .filter((r) => r.includes(hash.slice(0, 12)));
    expect(rows).toHaveLength(1);
    expect((await client.postForm(`${example.url}/payments/retry`, { csrf: 'forged' })).status).toBe(403);
  });
  /** A signed-in client of `user` at the example. */
  async function signedIn(username = 'alice'): Promise<CookieClient> {
    const client = new CookieClient();
    const password = username === 'alice' ? 'wonderland' : 'pw';
    const back = await passAuthorization(client, locationOf(await client.get(`${example.url}/auth/kudos`)), {
      username,
      password,
    });
    await client.get(locationOf(back));
    return client;
  }

  /** The tip widget URL of a fresh order, from the profile page: its `state` is the order ID. */
  async function tipLink(client: CookieClient): Promise<URL> {
    const profile = await (await client.get(`${example.url}/profile`)).text();
    return new URL((/id="tip" href="([^"]+)"/.exec(profile)?.[1] ?? '').replaceAll('&amp;', '&'));
  }

  const rowsOf = async (client: CookieClient, hash: string) =>
    (await paymentsPage(client)).split('<tr class="payment">').filter((r) => r.includes(hash.slice(0, 12)));

  it('the return page reconciles only a signed-in user’s own open order, once: no user, no order, no replay', async () => {
    const agent = example.config.agentID;
    example.emulator?.setWebhook(agent, undefined); // only a reconcile could record these payments
    try {
      const pay = () =>
        example.emulator?.pay({ from: 'alice', to: 'bobby', amount: '1', via: agent }).txHash ?? '';
      const [first, second] = [pay(), pay()];
      await example.emulator?.idle();
      const alice = await signedIn();
      // A passer-by with a hash of the chain, and a signed-in user with a made-up state.
      const anonymous = await new CookieClient().get(`${example.url}/tip/done?tx_hash=${first}`);
      expect(await anonymous.text()).toContain('does not belong to your session');
      const madeUp = await alice.get(`${example.url}/tip/done?tx_hash=${first}&state=order-4711`);
      expect(await madeUp.text()).toContain('does not belong to your session');
      const noState = await alice.get(`${example.url}/tip/done?tx_hash=${first}`);
      expect(await noState.text()).toContain('does not belong to your session');
      expect(await rowsOf(alice, first)).toHaveLength(0);
      // Her own order: reconciled. The same order again (a replayed link): nothing.
      const order = (await tipLink(alice)).searchParams.get('state') ?? '';
      await alice.get(`${example.url}/tip/done?tx_hash=${first}&state=${order}`);
      expect(await rowsOf(alice, first)).toHaveLength(1);
      const replay = await alice.get(`${example.url}/tip/done?tx_hash=${second}&state=${order}`);
      expect(await replay.text()).toContain('does not belong to your session');
      expect(await rowsOf(alice, second)).toHaveLength(0);
    } finally {
      example.emulator?.setWebhook(
        agent,
        `http://127.0.0.1:${example.port}/webhooks/kudos?token=${example.config.webhookSecret}`,
      );
    }
  });

  it('an edited widget link (to= the payer’s second account, via= the shop’s agent) is never credited', async () => {
    example.emulator?.addUser({ id: 'mallory-alt', password: 'pw' });
    const alice = await signedIn();
    const link = await tipLink(alice);
    link.searchParams.set('to', 'mallory-alt');
    link.searchParams.set('amount', '1000');
    const widget = await (await alice.get(link.toString())).text();
    const confirm = await alice.postForm(new URL('/in/widget/pay', link).toString(), {
      ...formFields(widget, '/in/widget/pay'),
      decision: 'confirm',
    });
    const done = locationOf(confirm);
    const hash = done.searchParams.get('tx_hash') ?? '';
    expect(hash).toMatch(/^[0-9A-F]{64}$/);
    await alice.get(done.toString()); // the return page reconciles it too (her order is valid)
    await example.emulator?.idle(); // and the service notified the shop (it went through the agent)
    expect(example.emulator?.deliveries.some((d) => d.txHash === hash && d.responseStatus === 200)).toBe(
      true,
    );
    const rows = await rowsOf(alice, hash);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('success');
    expect(rows[0]).toContain('<td class="paid">not paid to the shop</td>');
    expect(rows[0]).toContain('<td class="received">0 KUDOS</td>');
  });

  it('a late pending notification never moves a payment back from success', async () => {
    const add = example.stores.payments.add.bind(example.stores.payments);
    let pendingFails = true;
    example.stores.payments.add = async (payment) => {
      if (payment.status === 'pending' && pendingFails) throw new Error('pending row failed');
      return add(payment);
    };
    const emulator = example.emulator;
    if (!emulator) throw new Error('no embedded emulator');
    emulator.webhookMode.pendingFirst = true;
    try {
      const tx = emulator.pay({ from: 'alice', to: 'bobby', amount: '1', via: example.config.agentID });
      await emulator.idle();
      const alice = await signedIn();
      expect((await rowsOf(alice, tx.txHash))[0]).toContain('success');
      pendingFails = false;
      // The pending notification is processed now, after the success (Retry runs redrive()).
      const csrf = /name="csrf" value="([^"]+)"/.exec(await paymentsPage(alice))?.[1] ?? '';
      expect((await alice.postForm(`${example.url}/payments/retry`, { csrf })).status).toBe(303);
      const rows = await rowsOf(alice, tx.txHash);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('<td class="status">success</td>');
      expect(rows[0]).toContain('<td class="paid">paid</td>');
    } finally {
      emulator.webhookMode.pendingFirst = false;
      example.stores.payments.add = add;
    }
  });

  it('shows who paid whom only to a signed-in user', async () => {
    const anonymous = await new CookieClient().get(`${example.url}/payments`);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/');
    const page = await paymentsPage(await signedIn());
    expect(page).toContain('Payments received');
  });
});
