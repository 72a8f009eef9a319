import { startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';

// The chain's transaction search as each of the two programs that answer it does, rule for rule
// (docs/kudos-service.md#the-chains-transaction-search): the chain's own software (SDK 0.46 with
// CometBFT 0.34, the default) and the service's indexer (`chainSearch: 'indexer'`), over the same
// five payments to bobby and one failed payment.

const search = (origin: string, query: string) => fetch(`${origin}/cosmos/tx/v1beta1/txs?${query}`);
const quoted = (address: string) => `events=${encodeURIComponent(`transfer.recipient='${address}'`)}`;
const bare = (address: string) => `events=${encodeURIComponent(`transfer.recipient=${address}`)}`;
const hashes = (body: { tx_responses: Array<{ txhash: string }> }) => body.tx_responses.map((r) => r.txhash);

/** An emulator answering as `chainSearch`, with five payments to bobby (oldest first in `paid`) and one that failed. */
async function chainWithPayments(chainSearch: 'sdk' | 'indexer') {
  const kudos = await startKudosEmulator({ users: PAYMENT_USERS, paymentDelayMs: 5, chainSearch });
  const paid: string[] = [];
  for (let i = 1; i <= 5; i++) {
    paid.push(kudos.pay({ from: 'alice', to: 'bobby', amount: String(i) }).txHash);
    kudos.advanceClock(1000);
  }
  const failed = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', outcome: 'fail' }).txHash;
  await kudos.idle();
  return { kudos, paid, failed, bobby: kudos.walletOf('bobby', 'kudos') };
}

describe('the indexer (chainSearch: "indexer"), exactly', () => {
  let chain: Awaited<ReturnType<typeof chainWithPayments>>;
  beforeAll(async () => {
    chain = await chainWithPayments('indexer');
  });
  afterAll(() => chain.kudos.close());
  const ask = async (query: string) => {
    const res = await search(chain.kudos.chainURL, query);
    return { status: res.status, body: await res.json() };
  };

  it('with no pagination.limit the limit is 1, and page and limit are ignored', async () => {
    const { body } = await ask(`${quoted(chain.bobby)}&page=2&limit=3`);
    expect(hashes(body)).toEqual(chain.paid.slice(0, 1));
  });

  it('counts only when asked pagination.count_total=true: else total and pagination.total are "0"', async () => {
    const uncounted = await ask(`${quoted(chain.bobby)}&pagination.limit=2`);
    expect(hashes(uncounted.body)).toHaveLength(2);
    expect(uncounted.body).toMatchObject({ total: '0', pagination: { total: '0' } });
    const counted = await ask(`${quoted(chain.bobby)}&pagination.limit=2&pagination.count_total=true`);
    expect(counted.body).toMatchObject({ total: '5', pagination: { total: '5' } });
  });

  it('rounds the offset down to a multiple of the limit, and caps the limit at 100', async () => {
    const { body } = await ask(`${quoted(chain.bobby)}&pagination.offset=3&pagination.limit=2`);
    expect(hashes(body)).toEqual(chain.paid.slice(2, 4));
    const capped = await ask(`events=${encodeURIComponent("message.module='bank'")}&pagination.limit=500`);
    expect(hashes(capped.body)).toHaveLength(5); // the five that did not fail: below the cap of 100
  });

  it('gives next_key whenever rows come back, and pages on from it', async () => {
    const first = await ask(`${quoted(chain.bobby)}&pagination.limit=2&order_by=DESC`);
    expect(hashes(first.body)).toEqual([chain.paid[4], chain.paid[3]]);
    const key = first.body.pagination.next_key;
    expect(Buffer.from(key, 'base64')).toHaveLength(8);
    const next = await ask(
      `${quoted(chain.bobby)}&pagination.limit=2&order_by=order_by_desc&pagination.key=${encodeURIComponent(key)}`,
    );
    expect(hashes(next.body)).toEqual([chain.paid[2], chain.paid[1]]);
  });

  it('answers 200 with empty lists past the end, with no next_key', async () => {
    const { status, body } = await ask(`${quoted(chain.bobby)}&pagination.offset=100&pagination.limit=100`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ txs: [], tx_responses: [], pagination: { next_key: null } });
  });

  it('refuses an unquoted value, and a key given twice, with 400 {"error"}', async () => {
    expect(await ask(bare(chain.bobby))).toEqual({
      status: 400,
      body: { error: 'expect query event value missing single quotes' },
    });
    const twice = await ask(`${quoted(chain.bobby)}&${quoted(chain.kudos.walletOf('alice', 'kudos'))}`);
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual({ error: expect.stringContaining('transfer.recipient') });
  });

  it('with no events filters nothing, and finds a failed transaction by no event', async () => {
    const { body } = await ask('pagination.limit=100&pagination.count_total=true');
    expect(body.total).toBe('6'); // every transaction in a block, the failed one too
    const fee = await ask(
      `events=${encodeURIComponent(`tx.fee_payer='${chain.kudos.walletOf('alice', 'kudos')}'`)}&pagination.limit=100`,
    );
    expect(hashes(fee.body)).toEqual([]); // fee events are not in the logs: not indexed
    expect(hashes(body)).toContain(chain.failed);
  });
});

describe("the chain's own software (the default), exactly", () => {
  let chain: Awaited<ReturnType<typeof chainWithPayments>>;
  beforeAll(async () => {
    chain = await chainWithPayments('sdk');
  });
  afterAll(() => chain.kudos.close());
  const ask = async (query: string) => {
    const res = await search(chain.kudos.chainURL, query);
    return { status: res.status, text: await res.text() };
  };

  it('caps a limit above 100 silently, and answers indented JSON with its defaults written out', async () => {
    const { status, text } = await ask(`${quoted(chain.bobby)}&limit=500`);
    expect(status).toBe(200);
    expect(text).toMatch(/^\{\n {2}"txs": \[/);
    const body = JSON.parse(text);
    expect(hashes(body)).toEqual(chain.paid);
    expect(body).toMatchObject({ pagination: null, total: '5' });
    const none = JSON.parse((await ask(quoted(chain.kudos.walletOf('shop-agent', 'kudos')))).text);
    expect(none).toEqual({ txs: [], tx_responses: [], pagination: null, total: '0' });
  });

  it('refuses an unquoted value as CometBFT does: 500 code 2', async () => {
    const { status, text } = await ask(bare(chain.bobby));
    expect(status).toBe(500);
    expect(JSON.parse(text)).toMatchObject({ code: 2, details: [] });
  });

  it('refuses a search with no events: 400 code 3', async () => {
    const { status, text } = await ask('limit=10');
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      code: 3,
      message: 'must declare at least one event to search',
      details: [],
    });
  });

  it('answers a page past the last with 500 code 2 naming the range', async () => {
    const { status, text } = await ask(`${quoted(chain.bobby)}&page=3&limit=3`);
    expect(status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      code: 2,
      message: 'page should be within [1, 2] range, given 3',
      details: [],
    });
  });

  it('finds a failed transaction by its fee step’s events (all of a transaction’s events are indexed)', async () => {
    const fee = `events=${encodeURIComponent(`tx.fee_payer='${chain.kudos.walletOf('alice', 'kudos')}'`)}&limit=100`;
    expect(hashes(JSON.parse((await ask(fee)).text))).toContain(chain.failed);
  });
});
