import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_WAIT_MS, launchChromium } from '../helpers/chromium.js';
import { handPort } from '../helpers/handed-port.js';
import { SNIPPET_HOOK_MS } from '../helpers/machine-wait.js';
import { type EmulatorFromLine, shellRecipe, startEmulatorLine } from '../helpers/readme-commands.js';
import { compile, runSnippet } from '../helpers/snippets.js';

// The first examples of the packages' own READMEs (docs/snippets/core-errors.ts and
// docs/snippets/payments-first.ts, written into the READMEs by `npm run docs`),
// compiled and run as they are: kudos-core's error hierarchy, and kudos-payments' first shop, with no
// Passport in it, run with its README's own commands and paid through the emulator's pages and sender.

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

describe("kudos-emulator's README example (from the shell), its lines run as written", () => {
  it('starts, says its options, and a payment triggered from the shell is on its chain', async () => {
    const { env, commands } = shellRecipe(
      readFileSync('packages/kudos-emulator/README.md', 'utf8'),
      'npx kudos-emulator',
    );
    expect(env).toEqual({});
    const [start, help, trigger] = commands;
    expect([start, help]).toEqual(['npx kudos-emulator', 'npx kudos-emulator --help']);
    const emulator = await startEmulatorLine(start as string, {}); // the one change: a free port for 4000
    try {
      const port = new URL(emulator.authURL).port;
      // The banner's four variables, as its first paragraph says.
      for (const name of ['KUDOS_AUTH_URL', 'KUDOS_BASE_URL', 'KUDOS_CLIENT_ID', 'KUDOS_CLIENT_SECRET'])
        expect(emulator.banner()).toContain(`export ${name}=`);
      const run = (line: string) =>
        execFileSync(
          process.execPath,
          ['packages/kudos-emulator/dist/cjs/cli.js', ...line.replace('npx kudos-emulator ', '').split(' ')],
          { encoding: 'utf8' },
        );
      expect(run(help as string)).toContain('trigger payment');
      const out = run((trigger as string).replace('127.0.0.1:4000', `127.0.0.1:${port}`));
      const hash = /[0-9A-F]{64}/.exec(out)?.[0];
      expect(hash, out).toBeDefined();
      const onChain = await fetch(`${emulator.authURL}/chain/cosmos/tx/v1beta1/txs/${hash}`);
      expect(onChain.status).toBe(200);
    } finally {
      await emulator.stop();
    }
  });
});

describe("kudos-payments' README example (a first shop), with exactly the commands that README gives", () => {
  let emulator: EmulatorFromLine | undefined;
  let shop: Awaited<ReturnType<typeof runSnippet>> | undefined;
  let browser: Browser | undefined;
  let commands: string[];
  let here: (text: string) => string;

  beforeAll(async () => {
    const recipe = shellRecipe(readFileSync('packages/kudos-payments/README.md', 'utf8'), '# 1. ');
    expect(recipe.env).toEqual({}); // nothing to export: the emulator's line and the shop's defaults agree
    commands = recipe.commands;
    expect(commands.slice(1)).toEqual(['npx tsx shop.ts', 'curl -X POST http://localhost:3001/orders']);
    // The one change: free ports for the README's 3001 (bound first, handed to the shop) and 4000.
    const shopSocket = await handPort();
    here = (text) => text.replaceAll('localhost:3001', `localhost:${shopSocket.port}`);
    emulator = await startEmulatorLine(here(commands[0] as string), {});
    const { authURL } = emulator;
    // The shop as written: its secret, wallet, user and agent are its defaults (no environment of
    // the test's own: not even the secret every other snippet is started with).
    shop = await runSnippet(
      compile('payments-first'),
      {
        KUDOS_WEBHOOK_SECRET: undefined,
        SHOP_URL: here('http://localhost:3001'),
        KUDOS_AUTH_URL: authURL,
        KUDOS_BASE_URL: `${authURL}/api`,
        KUDOS_CHAIN_URL: `${authURL}/chain`,
      },
      shopSocket,
    );
    browser = await launchChromium();
  }, SNIPPET_HOOK_MS);
  afterAll(async () => {
    await browser?.close();
    shop?.child.kill('SIGTERM');
    await emulator?.stop();
  });

  it("is paid through the emulator's widget pages: onPaid runs once, and the return page says paid", async () => {
    const [, , curl] = commands;
    const res = await fetch(here((curl as string).split(' ').at(-1) as string), { method: 'POST' });
    expect(res.status).toBe(200);
    const { reference, widget } = (await res.json()) as { reference: string; widget: string };
    const link = new URL(widget);
    expect(`${link.origin}${link.pathname}`).toBe(`${emulator?.authURL}/in/widget/pay`);
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
    });
    const context = await (browser as Browser).newContext();
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    try {
      const page = await context.newPage();
      await page.goto(widget); // not signed in at Kudos: its sign-in page first, then the widget
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('wonderland');
      await page.getByRole('button', { name: 'Log in' }).click();
      await Promise.all([
        page.waitForURL(here('http://localhost:3001/paid?**')),
        page.getByRole('button', { name: 'Confirm' }).click(),
      ]);
      const txHash = new URL(page.url()).searchParams.get('tx_hash');
      expect(await page.textContent('body')).toBe('paid, thank you');
      await expect.poll(() => shop?.output).toContain(`paid: ${reference} ${txHash}`);
      expect(shop?.output.split(`paid: ${reference}`)).toHaveLength(2);
      // The same return page with another order's reference says nothing of this payment.
      const other = (await (
        await fetch(here('http://localhost:3001/orders'), { method: 'POST' })
      ).json()) as {
        reference: string;
      };
      const wrong = await fetch(
        here(`http://localhost:3001/paid?state=${other.reference}&tx_hash=${txHash}`),
      );
      expect(await wrong.text()).toBe('not_this_order');
      // An edited link (half the price) is paid and delivered, and onPaid is not told of it.
      const cheap = new URL(widget.replace(reference, other.reference));
      cheap.searchParams.set('amount', '1');
      await Promise.all([
        page.waitForURL(here('http://localhost:3001/paid?**')),
        page.goto(cheap.href).then(() => page.getByRole('button', { name: 'Confirm' }).click()),
      ]);
      const cheapHash = new URL(page.url()).searchParams.get('tx_hash') ?? '';
      expect(await page.textContent('body')).not.toBe('paid, thank you');
      const answered = async () => {
        const listed = (await (await fetch(`${emulator?.authURL}/_emulator/deliveries`)).json()) as
          | Array<{ txHash: string; status: string; answer: unknown }>
          | { deliveries: Array<{ txHash: string; status: string; answer: unknown }> };
        const all = Array.isArray(listed) ? listed : listed.deliveries;
        return all.some((d) => d.txHash === cheapHash && d.status === 'success' && d.answer === 200);
      };
      await expect.poll(answered).toBe(true); // its notification was delivered and answered
      expect(shop?.output).not.toContain(`paid: ${other.reference}`);
      expect(shop?.output.split(`paid: ${reference}`)).toHaveLength(2);
    } finally {
      await context.close();
    }
  });
});
