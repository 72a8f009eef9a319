// Test chain nodes for reconcileChain(): a real HTTP server that answers the chain's search and
// lookup by hash from a list of transfers, exactly as the chain's own software (SDK 0.46 with
// CometBFT 0.34: `page`, `limit`, a top-level `total`, a page past the last 500 code 2, a bare value
// 500 code 2) or the service's indexer (`pagination.offset` rounded to the limit, `pagination.limit`
// 1 when absent, totals "0" unless `pagination.count_total=true`, `next_key`, a bare value 400) answers,
// written from docs/kudos-service.md#the-chains-transaction-search and not from the emulator; and
// faulty or hostile in the ways a node can be: pages capped, a lying total, the order ignored,
// entries without a block time, page 1 over and over, slow, failing at a chosen request. Plain
// JavaScript: the benchmarks start it too.
import { createHash } from 'node:crypto';
import http from 'node:http';

/**
 * One transfer of the test chain: a `MsgSend` of `amount` nanokudos from `from` to `to` with `memo`,
 * in the block at `height`, made at `time` (epoch ms).
 * @typedef {{ hash: string, height: number, time: number, from: string, to: string, amount: string, memo: string }} TestTransfer
 */

/**
 * How the node misbehaves, changeable while it runs: `cap` (most entries a page, whatever was asked),
 * `total` (what it says as `total`, from the real count), `ignoreOrder` (always oldest first),
 * `repeatFirstPage`, `untimed` (search entries of these hashes come without a block time; the lookup by
 * hash has it), `delayMs` (before each answer), `failAtSearch` (answers 500 to the search request of
 * that number, 1-based, once), `hangAtSearch` (never answers that search request; `close()` ends it).
 * @typedef {{ paging: 'sdk' | 'indexer', cap?: number, total?: (real: number) => string, ignoreOrder?: boolean,
 *   repeatFirstPage?: boolean, untimed?: ReadonlySet<string>, delayMs?: number, failAtSearch?: number,
 *   hangAtSearch?: number }} NodeBehaviour
 */

/**
 * A started node: its URL, its transfers and behaviour (change them as it runs), the requests to the
 * search and to the lookup by hash since the start (or `reset()`), and every search URL asked.
 * @typedef {{ url: string, transfers: TestTransfer[], behaviour: NodeBehaviour, searches: number, lookups: number,
 *   asked: URL[], reset(): void, close(): Promise<void> }} TestChainNode
 */

let serial = 0;

/**
 * `server` listening on 127.0.0.1 at a free port: its URL, and a close that ends its open connections too.
 * @param {http.Server} server
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
async function listening(server) {
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

/** A fresh transfer hash. @returns {string} */
export function testHash() {
  return createHash('sha256')
    .update(`test-transfer-${process.pid}-${serial++}-${Math.random()}`)
    .digest('hex')
    .toUpperCase();
}

/**
 * The `GetTxResponse` of a transfer, as the chain answers it (`untimed`: no `timestamp`).
 * @param {TestTransfer} t
 * @param {boolean} [untimed]
 * @returns {{ tx: unknown, tx_response: unknown }}
 */
export function getTxResponse(t, untimed = false) {
  const body = {
    messages: [
      {
        '@type': '/cosmos.bank.v1beta1.MsgSend',
        from_address: t.from,
        to_address: t.to,
        amount: [{ denom: 'nanokudos', amount: t.amount }],
      },
    ],
    memo: t.memo,
  };
  const tx = { body, auth_info: { fee: { amount: [] } }, signatures: [] };
  return {
    tx,
    tx_response: {
      height: String(t.height),
      txhash: t.hash,
      code: 0,
      tx: { '@type': '/cosmos.tx.v1beta1.Tx', ...tx },
      ...(untimed ? {} : { timestamp: new Date(t.time).toISOString().replace(/\.\d{3}Z$/, 'Z') }),
      events: [],
      logs: [],
    },
  };
}

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The slice a search asks for, as the node pages: the SDK by `page` and `limit` (default 100, most
 * 100), the indexer by `pagination.offset` rounded down to a multiple of `pagination.limit` (default
 * 1, most 100). A node that caps its pages pages by its own size (CometBFT's per_page is clamped
 * before the skip).
 * @param {NodeBehaviour} behaviour
 * @param {URLSearchParams} params
 */
function sliceOf(behaviour, params) {
  const sdk = behaviour.paging === 'sdk';
  const asked = Number(params.get(sdk ? 'limit' : 'pagination.limit') || (sdk ? 100 : 1));
  const size = Math.min(asked, 100, behaviour.cap ?? 100);
  const from = sdk
    ? (Number(params.get('page') || 1) - 1) * size
    : Math.floor(Number(params.get('pagination.offset') || 0) / size) * size;
  return behaviour.repeatFirstPage ? { from: 0, size } : { from, size };
}

/**
 * The recipient a search's `events` ask for, as each program reads them: both want the value
 * single-quoted (the SDK passes a bare one to CometBFT, whose parser fails: 500 code 2; the indexer
 * answers 400 `{"error"}`); the SDK wants at least one condition (400 code 3), the indexer then
 * filters nothing (undefined: every transfer).
 * @param {NodeBehaviour} behaviour
 * @param {URLSearchParams} params
 * @returns {{ recipient: string | undefined } | { status: number, body: unknown }}
 */
function recipientOf(behaviour, params) {
  const events = params.getAll('events');
  const sdk = behaviour.paging === 'sdk';
  if (events.length === 0) {
    return sdk
      ? { status: 400, body: { code: 3, message: 'must declare at least one event to search', details: [] } }
      : { recipient: undefined };
  }
  const quoted = /^transfer\.recipient='([a-z0-9]+)'$/.exec(events[0] ?? '');
  if (quoted) return { recipient: quoted[1] };
  return sdk
    ? { status: 500, body: { code: 2, message: 'failed to parse query', details: [] } }
    : { status: 400, body: { error: 'expect query event value missing single quotes' } };
}

/**
 * A search's answer as each program writes it: the SDK's `pagination: null` and a top-level `total`
 * (a page past the last is 500 code 2); the indexer's `pagination` with `next_key` (whenever rows
 * come back) and both totals, "0" unless `pagination.count_total=true` was asked.
 * @param {NodeBehaviour} b
 * @param {URLSearchParams} params
 * @param {{ tx: unknown, tx_response: unknown }[]} page
 * @param {{ from: number, size: number }} slice
 * @param {number} count
 * @returns {{ status: number, body: unknown }}
 */
function answerOf(b, params, page, slice, count) {
  const lists = { txs: page.map((p) => p.tx), tx_responses: page.map((p) => p.tx_response) };
  if (b.paging === 'sdk') {
    const pages = Math.max(1, Math.ceil(count / slice.size));
    const asked = slice.from / slice.size + 1;
    if (!b.repeatFirstPage && asked > pages) {
      const message = `page should be within [1, ${pages}] range, given ${asked}`;
      return { status: 500, body: { code: 2, message, details: [] } };
    }
    return {
      status: 200,
      body: { ...lists, pagination: null, total: b.total ? b.total(count) : String(count) },
    };
  }
  const counted = params.get('pagination.count_total') === 'true';
  const total = b.total ? b.total(count) : counted ? String(count) : '0';
  const key = Buffer.alloc(8);
  key.writeBigUInt64LE(BigInt(slice.from + page.length));
  const nextKey = page.length > 0 ? key.toString('base64') : null;
  return { status: 200, body: { ...lists, pagination: { next_key: nextKey, total }, total } };
}

/**
 * Starts a test node over `transfers` (to any recipient: the search filters by `transfer.recipient`)
 * on 127.0.0.1, a free port.
 * @param {TestTransfer[]} transfers
 * @param {NodeBehaviour} [behaviour]
 * @returns {Promise<TestChainNode>}
 */
export async function startTestChainNode(transfers, behaviour = { paging: 'sdk' }) {
  /** @type {TestChainNode} */
  const node = {
    url: '',
    transfers,
    behaviour,
    searches: 0,
    lookups: 0,
    asked: [],
    reset() {
      node.searches = 0;
      node.lookups = 0;
      node.asked = [];
    },
    close: async () => undefined,
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://node.test');
    /** @param {number} status @param {unknown} body */
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const b = node.behaviour;
    if (b.delayMs) await sleep(b.delayMs);
    const byHash = /^\/cosmos\/tx\/v1beta1\/txs\/([0-9A-Fa-f]{64})$/.exec(url.pathname);
    if (byHash) {
      node.lookups++;
      const found = node.transfers.find((t) => t.hash === byHash[1]?.toUpperCase());
      return found
        ? send(200, getTxResponse(found))
        : send(404, { code: 5, message: 'tx not found', details: [] });
    }
    if (url.pathname !== '/cosmos/tx/v1beta1/txs')
      return send(404, { code: 5, message: 'Not Found', details: [] });
    node.searches++;
    node.asked.push(url);
    if (b.hangAtSearch === node.searches) {
      b.hangAtSearch = undefined;
      return;
    }
    if (b.failAtSearch === node.searches) {
      b.failAtSearch = undefined;
      return send(500, { code: 13, message: 'internal error', details: [] });
    }
    const asked = recipientOf(b, url.searchParams);
    if ('status' in asked) return send(asked.status, asked.body);
    const matching = node.transfers
      .filter((t) => asked.recipient === undefined || t.to === asked.recipient)
      .sort((x, y) => x.height - y.height || (x.hash < y.hash ? -1 : 1));
    const order = url.searchParams.get('order_by') ?? '';
    const newestFirst = b.paging === 'sdk' ? order === 'ORDER_BY_DESC' : /^(ORDER_BY_)?DESC$/i.test(order);
    if (!b.ignoreOrder && newestFirst) matching.reverse();
    const slice = sliceOf(b, url.searchParams);
    const page = matching
      .slice(slice.from, slice.from + slice.size)
      .map((t) => getTxResponse(t, b.untimed?.has(t.hash)));
    const { status, body } = answerOf(b, url.searchParams, page, slice, matching.length);
    send(status, body);
  });
  Object.assign(node, await listening(server));
  return node;
}

/**
 * A real HTTP server in front of `target` that counts what it forwards (chain searches and lookups
 * by hash apart from the rest).
 * @param {string} target
 */
export async function countingProxy(target) {
  const base = new URL(target);
  const counts = {
    url: '',
    searches: 0,
    lookups: 0,
    others: 0,
    reset() {
      counts.searches = 0;
      counts.lookups = 0;
      counts.others = 0;
    },
    /** @returns {Promise<void>} */
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://proxy.test').pathname;
    if (path.endsWith('/cosmos/tx/v1beta1/txs')) counts.searches++;
    else if (/\/cosmos\/tx\/v1beta1\/txs\/[0-9A-Fa-f]{64}$/.test(path)) counts.lookups++;
    else counts.others++;
    const upstream = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: `${base.pathname.replace(/\/$/, '')}${req.url ?? '/'}`,
        headers: { ...req.headers, host: base.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  Object.assign(counts, await listening(server));
  return counts;
}
