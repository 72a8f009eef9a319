import { execFileSync } from 'node:child_process';
import type { KudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNIPPET_HOOK_MS } from '../helpers/machine-wait.js';
import { startPaymentsEmulator } from '../helpers/observed-shop.js';
import { payLink } from '../helpers/pay-link.js';
import { compile, runSnippet, SNIPPET_SECRET } from '../helpers/snippets.js';

// The first examples of the packages' own READMEs (docs/snippets/core-errors.ts and
// docs/snippets/payments-first.ts, written into the READMEs by `npm run docs`),
// compiled and run as they are: kudos-core's error hierarchy, and kudos-payments' first shop, with no
// Passport in it, against the emulator and its real sender.

describe("kudos-core's README example", () => {
  it('catches a KudosError and reads its row of the one code table', () => {
    const out = execFileSync(process.execPath, [compile('core-errors')], { encoding: 'utf8' });
    expect(out.split('\n')).toEqual([
      expect.stringMatching(
        /^KudosError store_unavailable \(503\): a store failed or did not answer in time/,
      ),
      'true not a Kudos error',
      '',
    ]);
  });
});

describe("kudos-payments' README example (a first shop)", () => {
  let kudos: KudosEmulator;
  let shop: Awaited<ReturnType<typeof runSnippet>>;

  beforeAll(async () => {
    const file = compile('payments-first');
    kudos = await startPaymentsEmulator();
    shop = await runSnippet(file, {
      KUDOS_AUTH_URL: kudos.authURL,
      KUDOS_BASE_URL: kudos.baseURL,
      KUDOS_SHOP_WALLET: kudos.walletOf('bobby'),
      KUDOS_WEBHOOK_SECRET: SNIPPET_SECRET,
    });
    kudos.setWebhook('shop-agent', `${shop.url}/webhooks/kudos?token=${SNIPPET_SECRET}`);
  }, SNIPPET_HOOK_MS);
  afterAll(async () => {
    shop?.child.kill('SIGTERM');
    await kudos?.close();
  });

  it('makes an order whose widget link pays bobby through the agent, and tells onPaid once it is paid', async () => {
    const res = await fetch(`${shop.url}/orders`, { method: 'POST' });
    expect(res.status).toBe(200);
    const { reference, widget } = (await res.json()) as { reference: string; widget: string };
    const link = new URL(widget);
    expect(`${link.origin}${link.pathname}`).toBe(`${kudos.authURL}/in/widget/pay`);
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
    });
    const tx = payLink(kudos, widget, 'alice');
    await kudos.idle();
    await expect.poll(() => shop.output).toContain(`paid: ${reference} ${tx.txHash}`);
    // An edited link (half the price) pays nothing: onPaid is not told of it.
    const second = (await (await fetch(`${shop.url}/orders`, { method: 'POST' })).json()) as {
      widget: string;
    };
    const cheap = payLink(kudos, second.widget, 'alice', (params) => params.set('amount', '1'));
    await kudos.idle();
    expect(shop.output).not.toContain(cheap.txHash);
    expect(shop.output.split(`paid: ${reference}`)).toHaveLength(2);
  });
});
