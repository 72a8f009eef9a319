import type { ChildProcess } from 'node:child_process';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authURLOf, startCli } from '../../../test/helpers/cli.js';
import { PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';

// The emulator's chain as the chain's own software answers (docs/kudos-service.md#the-chains-transaction-search,
// the seventh reading): the search paged by `page`/`limit` with a top-level `total` (Cosmos SDK 0.46,
// `pagination.*` ignored), or as the service's indexer with `chainSearch: 'indexer'`; the filter's
// syntax checked; transfer events spelled as the chain writes them; a failed transaction's fee
// events; and Express's own 404 page for a path the API has no route for.

const search = (origin: string, query: string) => fetch(`${origin}/cosmos/tx/v1beta1/txs?${query}`);
const recipient = (address: string) => `events=${encodeURIComponent(`transfer.recipient='${address}'`)}`;
const hashes = (body: { tx_responses: Array<{ txhash: string }> }) => body.tx_responses.map((r) => r.txhash);

/** The attributes of the `type` events of a lookup answer (`tx_response.events`, base64), decoded. */
function events(
  body: {
    tx_response: { events: Array<{ type: string; attributes: Array<{ key: string; value: string }> }> };
  },
  type: string,
) {
  const text = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  return body.tx_response.events
    .filter((e) => e.type === type)
    .map((e) => Object.fromEntries(e.attributes.map((a) => [text(a.key), text(a.value)])));
}

describe("the chain's search as the chain's own software pages it (the default)", () => {
  let kudos: KudosEmulator;
  const paid: string[] = [];
  beforeAll(async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5 });
    for (let i = 1; i <= 5; i++) {
      paid.push(kudos.pay({ from: 'alice', to: 'bobby', amount: String(i) }).txHash);
      kudos.advanceClock(1000);
    }
    await kudos.idle();
  });
  afterAll(() => kudos.close());
  const bobby = () => recipient(kudos.walletOf('bobby', 'kudos'));

  it('pages by page and limit, answers a top-level total and no pagination; pagination.* is ignored', async () => {
    const page2 = await (
      await search(kudos.chainURL, `${bobby()}&order_by=ORDER_BY_DESC&page=2&limit=2`)
    ).json();
    expect(hashes(page2)).toEqual([paid[2], paid[1]]);
    expect(page2).toMatchObject({ total: '5', pagination: null });
    const offset = await (
      await search(kudos.chainURL, `${bobby()}&pagination.offset=4&pagination.limit=1`)
    ).json();
    expect(hashes(offset)).toEqual(paid); // page 1, whole, oldest first (no order_by)
  });

  it('a page past the last is the node’s error, not an empty page', async () => {
    const res = await search(kudos.chainURL, `${bobby()}&page=4&limit=2`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      code: 2,
      message: 'page should be within [1, 3] range, given 4',
      details: [],
    });
    const none = await (
      await search(kudos.chainURL, recipient(kudos.walletOf('shop-agent', 'kudos')))
    ).json();
    expect(none).toMatchObject({ tx_responses: [], total: '0' });
  });

  it('refuses a filter with spaces around "=": 400, code 3, naming the event', async () => {
    const res = await search(
      kudos.chainURL,
      `events=${encodeURIComponent(`transfer.recipient = '${kudos.walletOf('bobby')}'`)}`,
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ code: 3, details: [] });
    expect(body.message).toMatch(
      /^invalid event; event transfer\.recipient = '.*' should be of the format: \{eventType\}\.\{eventAttribute\}=\{value\}$/,
    );
  });

  it('a MsgSend’s transfer event names recipient and sender in the main prefix', async () => {
    const tx = await (await fetch(`${kudos.chainURL}/cosmos/tx/v1beta1/txs/${paid[0]}`)).json();
    const transfers = events(tx, 'transfer');
    expect(transfers.at(-1)).toEqual({
      recipient: kudos.walletOf('bobby', 'kudos'),
      sender: kudos.walletOf('alice', 'kudos'),
      amount: '1000000000nanokudos',
    });
  });
});

describe('payments spelled in the legacy prefix, fees, failures', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      paymentDelayMs: 5,
      paymentAddressPrefix: 'cosmos',
    });
  });
  afterAll(() => kudos.close());

  it('a MsgSend to a legacy address is found under the main prefix; a MsgMultiSend output as the message gives it', async () => {
    const send = kudos.pay({ from: 'alice', to: 'bobby', amount: '1' });
    const multi = kudos.pay({ from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0.5' });
    await kudos.idle();
    const main = await (await search(kudos.chainURL, recipient(kudos.walletOf('bobby', 'kudos')))).json();
    const legacy = await (await search(kudos.chainURL, recipient(kudos.walletOf('bobby', 'cosmos')))).json();
    expect(hashes(main)).toEqual([send.txHash]);
    expect(hashes(legacy)).toEqual([multi.txHash]);
  });

  it('a failed transaction keeps its fee step’s events: found under the fee collector, not the shop', async () => {
    const failed = kudos.pay({ from: 'alice', to: 'shop-agent', amount: '1', outcome: 'fail' });
    await kudos.idle();
    const tx = await (await fetch(`${kudos.chainURL}/cosmos/tx/v1beta1/txs/${failed.txHash}`)).json();
    expect(tx.tx_response.code).not.toBe(0);
    expect(events(tx, 'transfer')).toEqual([
      {
        recipient: expect.stringMatching(/^kudos1/),
        sender: kudos.walletOf('alice', 'kudos'),
        amount: '2000000nanokudos',
      },
    ]);
    expect(events(tx, 'tx')).toEqual([
      { fee: '2000000nanokudos', fee_payer: kudos.walletOf('alice', 'kudos') },
    ]);
    for (const prefix of ['kudos', 'cosmos'] as const) {
      const found = await (
        await search(kudos.chainURL, recipient(kudos.walletOf('shop-agent', prefix)))
      ).json();
      expect(hashes(found)).not.toContain(failed.txHash);
    }
    const collector = events(tx, 'transfer')[0]?.recipient as string;
    const fees = await (await search(kudos.chainURL, recipient(collector))).json();
    expect(hashes(fees)).toContain(failed.txHash);
  });
});

describe('the indexer, with chainSearch: "indexer" (and --chain-search indexer)', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill();
  });

  it('the command takes --chain-search, and refuses a mode it does not know', async () => {
    const started = startCli(['--port', '0', '--quiet', '--chain-search', 'indexer']);
    children.push(started.child);
    const authURL = authURLOf(await started.output);
    const res = await (await search(`${authURL}/chain`, recipient('kudos1nothing'))).json();
    expect(res.pagination).toEqual({ next_key: null, total: '0' });
    await expect(startKudosEmulator({ chainSearch: 'archive' as never })).rejects.toThrow(
      /"chainSearch" must be one of sdk, indexer/,
    );
  });
});

describe('a path the API has no route for', () => {
  it('answers Express’s own 404 page, as the service does', async () => {
    const kudos = await startKudosEmulator({});
    try {
      const res = await fetch(`${kudos.baseURL}/no/such/route`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('<pre>Cannot GET /api/no/such/route</pre>');
    } finally {
      await kudos.close();
    }
  });
});
