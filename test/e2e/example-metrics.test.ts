import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from '../../example/start.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { exampleEnv } from '../helpers/example-env.js';
import { payLink } from '../helpers/pay-link.js';

// What an operator of the example sees at /metrics (Prometheus, through passport-kudos/otel) and
// /healthz after a sign-in, a paid tip and a tip whose handler failed: the lines the README shows.
describe('example app: /metrics and /healthz (real HTTP, embedded emulator)', () => {
  let example: Awaited<ReturnType<typeof startExample>>;
  beforeAll(async () => {
    example = await startExample(exampleEnv({ SESSION_SECRET: 'metrics-test-session-secret-xxxx' }));
  });
  afterAll(() => example.close());

  const emulator = () => {
    if (!example.emulator) throw new Error('no embedded emulator');
    return example.emulator;
  };

  it('shows the sign-in, the paid tip and the failed handler as the README says', async () => {
    const alice = new CookieClient();
    const back = await passAuthorization(alice, locationOf(await alice.get(`${example.url}/auth/kudos`)));
    await alice.get(locationOf(back));
    // The profile's tip link makes the order when followed, and redirects to the widget.
    const tipLink = async () => {
      const profile = await (await alice.get(`${example.url}/profile`)).text();
      const href = (/id="tip" href="([^"]+)"/.exec(profile)?.[1] ?? '').replaceAll('&amp;', '&');
      return locationOf(await alice.get(new URL(href, example.url).toString())).toString();
    };
    payLink(emulator(), await tipLink(), 'alice');
    await emulator().idle();
    // The shop's payment log is down: the handler fails, the payment waits for redrive().
    const add = example.stores.payments.add.bind(example.stores.payments);
    example.stores.payments.add = async () => {
      throw new Error('payments database unavailable');
    };
    try {
      payLink(emulator(), await tipLink(), 'alice');
      await emulator().idle();
    } finally {
      example.stores.payments.add = add;
    }

    const res = await fetch(`${example.url}/metrics`);
    expect(res.status).toBe(200);
    const metrics = (await res.text()).split('\n');
    // Every line example/README.md shows is in the answer, with its value (the age: any, as it is time).
    const readme = readFileSync('example/README.md', 'utf8');
    const shown = (/```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? '').trim().split('\n');
    expect(shown).toHaveLength(9);
    for (const line of shown) {
      const [series, value] = line.split(' ') as [string, string];
      const real = metrics.find((l) => l.startsWith(`${series} `));
      expect(real, series).toBeDefined();
      if (series.startsWith('kudos_payments_oldest_unprocessed_age')) {
        expect(Number(real?.split(' ')[1])).toBeGreaterThan(0);
      } else expect(real).toBe(`${series} ${value}`);
    }
    const health = await fetch(`${example.url}/healthz`);
    expect(health.status).toBe(200);
    const status = await health.json();
    const shownStatus = JSON.parse(/```json\n([\s\S]*?)```/.exec(readme)?.[1] ?? '{}');
    expect(Object.keys(status).sort()).toEqual(Object.keys(shownStatus).sort());
    expect(status).toMatchObject({ unprocessed: 1, storeOk: true, storeError: null });

    // The shop's Retry records it: nothing waits any more.
    const shop = new CookieClient();
    const signedIn = await passAuthorization(shop, locationOf(await shop.get(`${example.url}/auth/kudos`)), {
      username: 'bobby',
      password: 'builder',
    });
    await shop.get(locationOf(signedIn));
    const page = await (await shop.get(`${example.url}/payments`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    expect((await shop.postForm(`${example.url}/payments/retry`, { csrf })).status).toBe(303);
    const after = await (await fetch(`${example.url}/metrics`)).text();
    expect(after).toMatch(
      /^kudos_payments_unprocessed\{kudos_receiver="payments",otel_scope_name="kudos-payments",otel_scope_version="0\.1\.0"\} 0$/m,
    );
    expect(after).toMatch(
      /^kudos_notifications_total\{kudos_outcome="processed",kudos_source="redrive",otel_scope_name="kudos-payments",otel_scope_version="0\.1\.0"\} 1$/m,
    );
  });
});
