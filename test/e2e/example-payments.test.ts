import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from '../../example/start.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { formFields, passAuthorization } from '../helpers/emulator-user.js';
import { exampleEnv } from '../helpers/example-env.js';
import { payLink } from '../helpers/pay-link.js';

// The example's tips are orders of kudosPayments(): recorded even when the notification never
// arrives (the return page looks the hash up), credited only to the tip the transaction names, and
// shown to each user as their own; the shop's account sees everything, with a Retry button.
describe('example app: tips as orders (real HTTP, embedded emulator)', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  const PASSWORDS: Record<string, string> = { alice: 'wonderland', bobby: 'builder', mallory: 'pw' };
  beforeAll(async () => {
    example = await startExample(exampleEnv({ SESSION_SECRET: 'payments-test-session-secret-xxx' }));
    example.emulator?.addUser({ id: 'mallory', password: 'pw' });
    example.emulator?.addUser({ id: 'mallory-alt', password: 'pw' });
  });
  afterAll(() => example.close());

  const emulator = () => {
    if (!example.emulator) throw new Error('no embedded emulator');
    return example.emulator;
  };
  const webhookOff = () => emulator().setWebhook(example.config.agentID, undefined);
  const webhookOn = () =>
    emulator().setWebhook(
      example.config.agentID,
      `http://127.0.0.1:${example.port}/webhooks/kudos?token=${example.config.webhookSecret}`,
    );

  /** A signed-in client of `username` at the example. */
  async function signedIn(username = 'alice'): Promise<CookieClient> {
    const client = new CookieClient();
    const back = await passAuthorization(client, locationOf(await client.get(`${example.url}/auth/kudos`)), {
      username,
      password: PASSWORDS[username],
    });
    await client.get(locationOf(back));
    return client;
  }

  /**
   * The widget link of the signed-in user's tip (`id` tip or tip-popup): the profile's link, followed
   * (the order is made then, and redirected to).
   */
  async function tipLink(client: CookieClient, id = 'tip'): Promise<URL> {
    const profile = await (await client.get(`${example.url}/profile`)).text();
    const href = (new RegExp(`id="${id}" href="([^"]+)"`).exec(profile)?.[1] ?? '').replaceAll('&amp;', '&');
    return locationOf(await client.get(new URL(href, example.url).toString()));
  }

  /** Pays a tip link through the widget's pages as the signed-in user; answers the return page. */
  async function payThroughWidget(client: CookieClient, link: URL) {
    const widget = await (await client.get(link.toString())).text();
    const confirm = await client.postForm(new URL('/in/widget/pay', link).toString(), {
      ...formFields(widget, '/in/widget/pay'),
      decision: 'confirm',
    });
    const done = locationOf(confirm);
    const page = await (await client.get(done)).text();
    return { txHash: done.searchParams.get('tx_hash') ?? '', page };
  }

  const paymentsPage = async (client: CookieClient) => (await client.get(`${example.url}/payments`)).text();
  const rowsOf = async (client: CookieClient, hash: string) =>
    (await paymentsPage(client)).split('<tr class="payment">').filter((r) => r.includes(hash.slice(0, 12)));

  it('records a tip whose notification never arrives: the return page looks its hash up', async () => {
    webhookOff();
    try {
      const alice = await signedIn();
      const link = await tipLink(alice);
      expect(link.searchParams.get('remarks')).toBe(
        `Tip from the Kudos example shop ${link.searchParams.get('state')}`,
      );
      const { txHash, page } = await payThroughWidget(alice, link);
      expect(page).toContain('Thank you! Your tip of 1 KUDOS was received.');
      expect(page.match(/Thank you/g)).toHaveLength(1); // said once
      expect(page).toContain(txHash);
      await emulator().idle();
      expect(emulator().deliveries.filter((d) => d.txHash === txHash)).toEqual([]);
      const rows = await rowsOf(alice, txHash);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('<td class="paid">paid</td>');
      expect(rows[0]).toContain('<td class="received">1 KUDOS</td>');
      // The payer's page is in the payer's words; the shop's in the shop's.
      const mine = await paymentsPage(alice);
      expect(mine).toContain('<h1>Your tips</h1>');
      expect(mine).not.toContain('Payments received');
      expect(await paymentsPage(await signedIn('bobby'))).toContain('<h1>Payments received</h1>');
    } finally {
      webhookOn();
    }
  });

  it('a late notification: Mallory’s return page with Alice’s hash credits Alice’s tip, never Mallory’s', async () => {
    webhookOff();
    try {
      const alice = await signedIn();
      const tx = payLink(emulator(), (await tipLink(alice)).toString(), 'alice');
      await emulator().idle();
      const mallory = await signedIn('mallory');
      const mine = (await tipLink(mallory)).searchParams.get('state') ?? '';
      const page = await (
        await mallory.get(`${example.url}/tip/done?tx_hash=${tx.txHash}&state=${mine}`)
      ).text();
      expect(page).toContain('This payment is not the one for this tip.');
      expect(await rowsOf(mallory, tx.txHash)).toEqual([]); // not hers, and not shown to her
      const rows = await rowsOf(alice, tx.txHash);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('<td>alice</td>');
      // The same through the popup's return (POST /tip/popup, as its script sends the widget's message).
      const profile = await (await mallory.get(`${example.url}/profile`)).text();
      const popupOrder = (await tipLink(mallory, 'tip-popup')).searchParams.get('state');
      const csrf = /data-csrf="([^"]+)"/.exec(profile)?.[1] ?? '';
      const popup = await mallory.postForm(`${example.url}/tip/popup`, {
        tx_hash: tx.txHash,
        state: popupOrder ?? '',
        csrf,
      });
      expect(popup.status).toBe(400);
      expect(await popup.json()).toEqual({
        status: 'refused',
        message: 'This payment is not the one for this tip.',
      });
      expect(await rowsOf(alice, tx.txHash)).toHaveLength(1);
      // A passer-by, and a made-up order.
      const anonymous = await new CookieClient().get(
        `${example.url}/tip/done?tx_hash=${tx.txHash}&state=${mine}`,
      );
      expect(await anonymous.text()).toContain('does not belong to your session');
      const madeUp = await alice.get(`${example.url}/tip/done?tx_hash=${tx.txHash}&state=order-4711`);
      expect(await madeUp.text()).toContain('does not belong to your session');
    } finally {
      webhookOn();
    }
  });

  it('an edited widget link (to= the payer’s second account, via= the shop’s agent) is never credited', async () => {
    const alice = await signedIn();
    const link = await tipLink(alice);
    link.searchParams.set('to', 'mallory-alt');
    link.searchParams.set('amount', '1000');
    const { txHash, page } = await payThroughWidget(alice, link);
    expect(txHash).toMatch(/^[0-9A-F]{64}$/);
    expect(page).not.toContain('was received');
    await emulator().idle(); // the service notified the shop (it went through the agent)
    expect(emulator().deliveries.some((d) => d.txHash === txHash && d.responseStatus === 200)).toBe(true);
    const shop = await signedIn('bobby');
    expect(await rowsOf(shop, txHash)).toEqual([]); // nothing reached the shop
  });

  it('an underpaid tip is not credited: the shop sees it to refund', async () => {
    const alice = await signedIn();
    const tx = payLink(emulator(), (await tipLink(alice)).toString(), 'alice', (p) => p.set('amount', '0.5'));
    await emulator().idle();
    const shop = await signedIn('bobby');
    const rows = await rowsOf(shop, tx.txHash);
    expect(rows[0]).toContain('<td class="paid">underpaid: to refund</td>');
    const page = await paymentsPage(shop);
    const exception = page
      .split('<tr class="exception">')
      .slice(1)
      .find((row) => row.includes(tx.txHash.slice(0, 12)));
    expect(exception).toContain('Acknowledge');
    const health = await fetch(`${example.url}/healthz`);
    expect(health.status).toBe(200); // an exception to refund does not make the shop unhealthy
    expect((await health.json()).exceptions).toBeGreaterThanOrEqual(1);
    // The shop refunded it: Acknowledge takes it off the list (alice may not).
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const aliceCsrf = /name="csrf" value="([^"]+)"/.exec(await paymentsPage(alice))?.[1] ?? '';
    const refused = await alice.postForm(`${example.url}/payments/acknowledge`, {
      csrf: aliceCsrf,
      txHash: tx.txHash,
    });
    expect(refused.status).toBe(403);
    const done = await shop.postForm(`${example.url}/payments/acknowledge`, { csrf, txHash: tx.txHash });
    expect(done.status).toBe(303);
    const after = await paymentsPage(shop);
    const listed = after.split('<tr class="exception">').slice(1);
    expect(listed.some((row) => row.split('</tr>')[0]?.includes(tx.txHash.slice(0, 12)))).toBe(false);
  });

  it('a user sees only their own payments; the shop’s account sees every one, and only it may Retry', async () => {
    const alice = await signedIn();
    const tx = payLink(emulator(), (await tipLink(alice)).toString(), 'alice');
    await emulator().idle();
    const mallory = await signedIn('mallory');
    const page = await paymentsPage(mallory);
    expect(page).not.toContain(tx.txHash.slice(0, 12));
    expect(page).not.toContain('id="unprocessed"');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    expect((await mallory.postForm(`${example.url}/payments/retry`, { csrf })).status).toBe(403);
    expect(await rowsOf(alice, tx.txHash)).toHaveLength(1);
    expect(await rowsOf(await signedIn('bobby'), tx.txHash)).toHaveLength(1);
    const anonymous = await new CookieClient().get(`${example.url}/payments`);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/?notice=login');
  });

  it('the shop’s own account is offered no tip (it would pay itself), and told why', async () => {
    const shop = await signedIn('bobby');
    const profile = await (await shop.get(`${example.url}/profile`)).text();
    expect(profile).not.toContain('id="tip"');
    expect(profile).toContain('id="shop-account"');
    expect(profile).toContain('tips are paid to it');
  });

  it('lists a payment the handler could not record, and the shop’s Retry records it once', async () => {
    const add = example.stores.payments.add.bind(example.stores.payments);
    let outage = true;
    example.stores.payments.add = async (payment) => {
      if (outage) throw new Error('payments database unavailable');
      return add(payment);
    };
    try {
      const alice = await signedIn();
      const tx = payLink(emulator(), (await tipLink(alice)).toString(), 'alice');
      await emulator().idle();
      const shop = await signedIn('bobby');
      const page = await paymentsPage(shop);
      expect(page).toContain('id="unprocessed"');
      expect(page).toContain('payments database unavailable');
      outage = false;
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
      expect((await shop.postForm(`${example.url}/payments/retry`, { csrf: 'forged' })).status).toBe(403);
      expect((await shop.postForm(`${example.url}/payments/retry`, { csrf })).status).toBe(303);
      const after = await paymentsPage(shop);
      expect(after).toContain('id="retried"');
      expect(after).not.toContain(`<tr class="unprocessed"><td><code>${tx.txHash.slice(0, 12)}`);
      await emulator().idle(); // the sender's own retry, if any, is a duplicate
      expect(await rowsOf(shop, tx.txHash)).toHaveLength(1);
    } finally {
      example.stores.payments.add = add;
    }
  });

  it('finds a tip that no notification and no return page brought (the payer’s browser failed) on the chain', async () => {
    const alice = await signedIn();
    const link = await tipLink(alice);
    const param = (name: string) => link.searchParams.get(name) ?? undefined;
    const tx = emulator().pay({
      from: 'alice',
      to: param('to') ?? '',
      amount: param('amount') ?? '',
      via: param('via'),
      fee: param('fee'),
      remarks: param('remarks'),
      state: param('state'),
      metadataPosted: false,
    });
    await emulator().idle();
    expect(emulator().deliveries.filter((d) => d.txHash === tx.txHash)).toEqual([]);
    expect(await rowsOf(alice, tx.txHash)).toEqual([]);
    // The shop asks now (the schedule does every minute): no token, no history to connect.
    const shop = await signedIn('bobby');
    const page = await paymentsPage(shop);
    expect(page).not.toContain('Connect');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const found = await shop.postForm(`${example.url}/payments/reconcile`, { csrf });
    expect(found.status).toBe(303);
    expect(await paymentsPage(shop)).toMatch(
      /Chain read: \d+ new transfers? to the shop since the last read: 1 credited now, \d+ already credited\./,
    );
    // Read again at once: nothing new, said as such (the table above keeps every payment).
    await shop.postForm(`${example.url}/payments/reconcile`, { csrf });
    expect(await paymentsPage(shop)).toContain(
      'Chain read: no new transfer to the shop since the last read (every payment so far is in the table).',
    );
    const rows = await rowsOf(alice, tx.txHash);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('<td class="paid">paid</td>');
    // The schedule's own call finds nothing new, and a user who is not the shop may not ask.
    expect(await example.reconcileChain()).toMatchObject({ processed: 0 });
    const denied = await alice.postForm(`${example.url}/payments/reconcile`, {
      csrf: /name="csrf" value="([^"]+)"/.exec(await paymentsPage(alice))?.[1] ?? '',
    });
    expect(denied.status).toBe(403);
  });
});

describe('example app: orders when the payer asks, operator routes for operators (real HTTP)', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  beforeAll(async () => {
    example = await startExample(
      exampleEnv({
        SESSION_SECRET: 'operators-test-session-secret-xx',
        TRUST_PROXY: '1',
        SCRAPER_TOKEN: 'scrape-me-0123',
      }),
    );
  });
  afterAll(() => example.close());

  it('makes a tip’s order when the payer follows its link, not per view, and uses an open one again', async () => {
    const alice = new CookieClient();
    const back = await passAuthorization(alice, locationOf(await alice.get(`${example.url}/auth/kudos`)));
    await alice.get(locationOf(back));
    for (let i = 0; i < 20; i++) {
      const profile = await (await alice.get(`${example.url}/profile`)).text();
      expect(profile).toContain('id="tip" href="/tip"');
      expect(profile).not.toMatch(/ko[0-9a-f]{32}/); // no order behind a view
    }
    const first = locationOf(await alice.get(`${example.url}/tip`));
    const again = locationOf(await alice.get(`${example.url}/tip`));
    expect(first.pathname).toBe('/in/widget/pay');
    expect(again.searchParams.get('state')).toBe(first.searchParams.get('state'));
    const popup = locationOf(await alice.get(`${example.url}/tip?popup=1`));
    expect(popup.searchParams.get('opener')).toBe('1');
    expect(popup.searchParams.get('state')).not.toBe(first.searchParams.get('state'));
    // Signed out: no order at all.
    expect((await fetch(`${example.url}/tip`, { redirect: 'manual' })).headers.get('location')).toBe(
      '/?notice=login',
    );
  });

  it('serves /healthz and /metrics to the loopback and the configured scraper only', async () => {
    const visitor = { 'x-forwarded-for': '203.0.113.7' }; // through the trusted proxy, from the Internet
    for (const path of ['/healthz', '/metrics']) {
      expect((await fetch(`${example.url}${path}`)).status).toBe(200);
      const stranger = await fetch(`${example.url}${path}`, { headers: visitor });
      expect(stranger.status).toBe(404);
      expect(await stranger.text()).toBe('Not Found');
      const wrong = await fetch(`${example.url}${path}`, {
        headers: { ...visitor, authorization: 'Bearer nope' },
      });
      expect(wrong.status).toBe(404);
      const scraper = await fetch(`${example.url}${path}`, {
        headers: { ...visitor, authorization: 'Bearer scrape-me-0123' },
      });
      expect(scraper.status).toBe(200);
    }
  });
});
