import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../../../test/helpers/cookie-client.js';
import { formFields, PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';
import { startWebhookSink, type WebhookSink } from '../../../test/helpers/webhook-sink.js';
import { checkAddress } from '../../kudos-core/src/chain/address.js';
import { runSubcommand } from '../src/cli/admin.js';

// How a widget payment reaches the chain and the shop, as the real service makes it
// (docs/kudos-service.md#wallet-addresses, #memo, #widget-metadata): the main-prefix
// spelling paid, the chain's byte limit on the memo, no way back after a failure, and the payment
// whose metadata the payer's browser never posted.

const SHOP = 'https://shop.example/paid';

describe('the emulator’s widget, chain and records as the service makes them', () => {
  let kudos: KudosEmulator;
  let sink: WebhookSink;
  let browser: CookieClient;

  async function start(options: Parameters<typeof startKudosEmulator>[0] = {}) {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: sink.url, paymentRedirectURIs: [SHOP] }],
      paymentDelayMs: 10,
      webhook: { attempts: 2, retryDelayMs: 10 },
      ...options,
    });
    return kudos;
  }

  /** The confirm form of the widget for `params`, signed in as alice. */
  async function widgetForm(params: Record<string, string>): Promise<Record<string, string>> {
    await browser.postForm(`${kudos.authURL}/in/login`, {
      username: 'alice',
      password: 'wonderland',
      next: '/',
    });
    const page = await browser.get(`${kudos.authURL}/in/widget/pay?${new URLSearchParams(params)}`);
    expect(page.status).toBe(200);
    return { ...formFields(await page.text(), '/in/widget/pay'), decision: 'confirm' };
  }

  const lookup = async (hash: string) =>
    (await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/tx/v1beta1/txs/${hash}`)).json();

  beforeEach(async () => {
    sink = await startWebhookSink();
    browser = new CookieClient();
  });
  afterEach(async () => {
    await kudos?.close();
    await sink.close();
  });

  it('pays the main-prefix spelling on the chain, in the record and the notification; the user record has both', async () => {
    await start();
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    const main = kudos.walletOf('bobby', 'kudos');
    expect(main).toMatch(/^kudos1/);
    const chain = await lookup(tx.txHash);
    expect(chain.tx.body.messages[0]).toMatchObject({
      to_address: main,
      from_address: kudos.walletOf('alice'),
    });
    expect((await (await fetch(`${kudos.baseURL}/tx/id/${tx.txHash}`)).json()).to).toBe(main);
    expect(sink.received[0]?.body).toMatchObject({ tx: { to: main } });
    // The public profile: cosmosWallet (legacy) and kudosWallet (main prefix), one account.
    const profile = await (await fetch(`${kudos.baseURL}/users/id/bobby/min`)).json();
    expect([profile.cosmosWallet, profile.kudosWallet]).toEqual([kudos.walletOf('bobby'), main]);
    const [a, b] = [checkAddress(profile.cosmosWallet), checkAddress(profile.kudosWallet)];
    expect(a.ok && b.ok && a.account === b.account).toBe(true);
    // Either spelling finds the user and reads the same balance.
    for (const address of [profile.cosmosWallet, profile.kudosWallet]) {
      expect((await (await fetch(`${kudos.baseURL}/users/addr/${address}/min`)).json()).user).toBe('bobby');
    }
    const balance = async (address: string) =>
      (await (await fetch(`${kudos.baseURL}/cosmos/lcd/cosmos/bank/v1beta1/balances/${address}`)).json())
        .balances;
    expect(await balance(profile.kudosWallet)).toEqual(await balance(profile.cosmosWallet));
    expect(await balance(profile.kudosWallet)).toEqual([{ denom: 'nanokudos', amount: '10001000000000' }]);
  });

  it('pays the legacy spelling with paymentAddressPrefix: cosmos (old records), and checks the option', async () => {
    await start({ paymentAddressPrefix: 'cosmos' });
    const tx = kudos.pay({ from: 'alice', to: 'bobby,shop-agent', amount: '1,2', via: 'shop-agent' });
    await kudos.idle();
    const { outputs } = (await lookup(tx.txHash)).tx.body.messages[0];
    expect(outputs.map((o: { address: string }) => o.address)).toEqual([
      kudos.walletOf('bobby'),
      kudos.walletOf('shop-agent'),
    ]);
    await kudos.close();
    await expect(start({ paymentAddressPrefix: 'osmo' as 'kudos' })).rejects.toThrow(
      '"paymentAddressPrefix" must be one of kudos, cosmos',
    );
  });

  it('refuses a memo over 256 bytes as the chain does: the widget’s error page, nothing recorded, nothing sent', async () => {
    await start();
    const before = (await (await fetch(`${kudos.authURL}/_emulator/state`)).json()).transactions.length;
    // 100 CJK characters: 300 bytes, under the 255-unit cut the service makes first.
    const form = await widgetForm({ to: 'bobby', amount: '1', via: 'shop-agent', remarks: '漢'.repeat(100) });
    const res = await browser.postForm(`${kudos.authURL}/in/widget/pay`, form);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const page = await res.text();
    expect(page).toContain('MEMO_TOO_LARGE');
    expect(page).toContain('300 bytes');
    expect(() =>
      kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', remarks: 'é'.repeat(129) }),
    ).toThrow('258 bytes, more than 256');
    await kudos.idle();
    expect((await (await fetch(`${kudos.authURL}/_emulator/state`)).json()).transactions.length).toBe(before);
    expect(sink.received).toEqual([]);
    // 256 bytes exactly is paid.
    const fits = kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '1',
      via: 'shop-agent',
      remarks: 'é'.repeat(128),
    });
    await kudos.idle();
    expect(fits.status).toBe('success');
    expect((await lookup(fits.txHash)).tx.body.memo).toBe('é'.repeat(128));
  });

  it('goes back nowhere after a failed blocking payment, in redirect and popup mode', async () => {
    await start();
    for (const extra of [{}, { opener: '1' }] as Array<Record<string, string>>) {
      kudos.setNextPaymentOutcome('fail');
      const form = await widgetForm({
        to: 'bobby',
        amount: '1',
        via: 'shop-agent',
        redirect_uri: SHOP,
        blocking: '1',
        ...extra,
      });
      const res = await browser.postForm(`${kudos.authURL}/in/widget/pay`, form);
      expect(res.headers.get('location')).toBeNull();
      const page = await res.text();
      expect(page).toContain('TX_FAIL');
      expect(page).not.toContain('postMessage');
    }
  });

  describe('a payment whose metadata the browser never posted', () => {
    /** Asserts that `hash` moved money and is recorded without any notification. */
    async function recordedNotNotified(hash: string) {
      await kudos.idle();
      expect((await lookup(hash)).tx_response.code).toBe(0);
      const record = await fetch(`${kudos.baseURL}/tx/id/${hash}`);
      expect(record.status).toBe(200);
      expect(await record.json()).not.toHaveProperty('metadata');
      expect(kudos.deliveries.filter((d) => d.txHash === hash)).toEqual([]);
      expect(sink.received).toEqual([]);
    }

    it('by the widget page’s switch: no redirect, no message to the opener, no notification', async () => {
      await start();
      for (const extra of [{ redirect_uri: SHOP }, { redirect_uri: SHOP, opener: '1' }] as Array<
        Record<string, string>
      >) {
        const form = await widgetForm({
          to: 'bobby',
          amount: '1',
          via: 'shop-agent',
          state: 's-1',
          ...extra,
        });
        expect(form).not.toHaveProperty('emulator_metadata_not_posted'); // a checkbox, off unless ticked
        const res = await browser.postForm(`${kudos.authURL}/in/widget/pay`, {
          ...form,
          emulator_metadata_not_posted: '1',
        });
        expect(res.headers.get('location')).toBeNull();
        const page = await res.text();
        expect(page).toContain('METADATA_NOT_POSTED');
        expect(page).not.toContain('postMessage');
        const hash = /id="tx-hash">([0-9A-F]{64})</.exec(page)?.[1] ?? '';
        await recordedNotNotified(hash);
      }
      // Unticked, the same payment goes back as usual.
      const back = await browser.postForm(
        `${kudos.authURL}/in/widget/pay`,
        await widgetForm({ to: 'bobby', amount: '1', via: 'shop-agent', redirect_uri: SHOP }),
      );
      expect(locationOf(back).origin).toBe('https://shop.example');
    });

    it('by pay({ metadataPosted: false }), failNextMetadataPost() and the CLI’s --no-metadata-posted', async () => {
      await start();
      await recordedNotNotified(
        kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent', metadataPosted: false })
          .txHash,
      );
      kudos.failNextMetadataPost();
      await recordedNotNotified(
        kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' }).txHash,
      );
      const trigger = (flags: string) =>
        runSubcommand(['trigger', 'payment', ...flags.split(' '), '--url', kudos.authURL]);
      const cli = await trigger('--to bobby --amount 1 --via shop-agent --no-metadata-posted --json');
      expect(cli.code).toBe(0);
      const made = JSON.parse(cli.out);
      expect(made).toMatchObject({ status: 'success', metadataPosted: false });
      await recordedNotNotified(made.txHash);
      const bad = await trigger('--to bobby --amount 1 --metadata-posted maybe').catch(
        (error: Error) => error,
      );
      expect(String(bad instanceof Error ? bad.message : bad.out)).toContain(
        '--metadata-posted takes true or false',
      );
      expect(() =>
        kudos.pay({ from: 'alice', to: 'bobby', amount: '1', metadataPosted: 'no' as unknown as boolean }),
      ).toThrow('"metadataPosted" must be true or false');
      // The next payment is notified again.
      kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
      await kudos.idle();
      expect(sink.received).toHaveLength(1);
    });
  });
});
