import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from '../../example/start.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { formFields, passAuthorization } from '../helpers/emulator-user.js';

// The example's payments: a tip is recorded even when its notification never arrives (the return
// page reconciles the hash), and what the handler could not process is listed with a Retry button.
describe('example app: no tip is lost (real HTTP, embedded emulator)', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  beforeAll(async () => {
    example = await startExample({ PORT: '0', SESSION_SECRET: 'payments-test-session-secret' });
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
});
