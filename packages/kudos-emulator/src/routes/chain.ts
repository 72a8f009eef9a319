import { DENOM } from 'kudos-core';
import {
  accountKey,
  CHAIN_EVENT_FILTER,
  CHAIN_SEARCH_MAX_LIMIT,
  MAIN_PREFIX,
  spellAddress,
} from 'kudos-core/chain';
import type { ChainSearchMode } from '../emulator-options.js';
import { balanceOf } from '../model/balances.js';
import { walletAccount, walletAddress } from '../model/ids.js';
import { chainMessages, type EmulatorTransaction, paymentOutputs, totalCoin } from '../model/payments.js';
import { type Ctx, safeDecode, sendJson } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import type { EmulatorState } from '../state.js';

const GAS_WANTED = '200000';
const GAS_USED = '81234';

/** One event: its type and its attributes (plain text). */
interface ChainEvent {
  type: string;
  attributes: Array<{ key: string; value: string; index: boolean }>;
}

/** The fee each emulated transaction pays for its gas (the chain's own price is not the emulator's business). */
const GAS_FEE = { denom: DENOM, amount: '2000000' };

/** The fee collector's module account, in the chain's main prefix (where the ante handler sends every fee). */
const FEE_COLLECTOR = spellAddress(accountKey('cosmos17xpfvakm2amg962yls6f84z3kell8c5lserqta'), MAIN_PREFIX);

function event(type: string, attributes: Record<string, string>): ChainEvent {
  return {
    type,
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value, index: true })),
  };
}

/**
 * The fee step's events, which a transaction keeps even when its messages fail: the payer's coins
 * spent and the fee collector's received, the transfer between them, the signer, the fee.
 */
function feeEvents(payer: string): ChainEvent[] {
  const fee = `${GAS_FEE.amount}${GAS_FEE.denom}`;
  return [
    event('coin_spent', { spender: payer, amount: fee }),
    event('coin_received', { receiver: FEE_COLLECTOR, amount: fee }),
    event('transfer', { recipient: FEE_COLLECTOR, sender: payer, amount: fee }),
    event('message', { sender: payer }),
    event('tx', { fee, fee_payer: payer }),
  ];
}

/**
 * The events of a payment's message, as the SDK (0.46) writes them: a `MsgSend` names recipient and
 * sender in the chain's main prefix; a `MsgMultiSend` names each output's address as the message
 * gives it, and its signer once (`message.sender`).
 */
function messageEvents(tx: EmulatorTransaction, payer: string): ChainEvent[] {
  const outputs = paymentOutputs(tx);
  const [only] = outputs;
  const amount = (coin: { amount: string; denom: string }) => `${coin.amount}${coin.denom}`;
  if (outputs.length === 1 && only) {
    const recipient = spellAddress(accountKey(only.address), MAIN_PREFIX);
    return [
      event('message', { action: '/cosmos.bank.v1beta1.MsgSend' }),
      event('coin_spent', { spender: payer, amount: amount(only.coin) }),
      event('coin_received', { receiver: recipient, amount: amount(only.coin) }),
      event('transfer', { recipient, sender: payer, amount: amount(only.coin) }),
      event('message', { sender: payer }),
      event('message', { module: 'bank' }),
    ];
  }
  const total = amount(totalCoin(outputs));
  return [
    event('message', { action: '/cosmos.bank.v1beta1.MsgMultiSend' }),
    event('coin_spent', { spender: payer, amount: total }),
    event('message', { sender: payer }),
    ...outputs.flatMap((output) => [
      event('coin_received', { receiver: output.address, amount: amount(output.coin) }),
      event('transfer', { recipient: output.address, amount: amount(output.coin) }),
    ]),
    event('message', { module: 'bank' }),
  ];
}

/** Every event of an included transaction: the fee step's, then its message's unless it failed. */
function eventsOf(tx: EmulatorTransaction): ChainEvent[] {
  const payer = spellAddress(accountKey(walletAddress(tx.request.from)), MAIN_PREFIX);
  return [...feeEvents(payer), ...(tx.status === 'fail' ? [] : messageEvents(tx, payer))];
}

/** Events as `tx_response.events` carries them since the chain's v4 release: keys and values in base64 (logs keep them plain). */
function base64Events(events: ChainEvent[]): ChainEvent[] {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return events.map((event) => ({
    type: event.type,
    attributes: event.attributes.map((a) => ({ key: b64(a.key), value: b64(a.value), index: a.index })),
  }));
}

/** The logs of a successful transaction: the events of its one message, grouped by type as the SDK does. */
function logsOf(tx: EmulatorTransaction): unknown[] {
  if (tx.status === 'fail') return [];
  const payer = spellAddress(accountKey(walletAddress(tx.request.from)), MAIN_PREFIX);
  const grouped = new Map<string, Array<{ key: string; value: string }>>();
  for (const { type, attributes } of messageEvents(tx, payer)) {
    const list = grouped.get(type) ?? [];
    list.push(...attributes.map(({ key, value }) => ({ key, value })));
    grouped.set(type, list);
  }
  const events = [...grouped].map(([type, attributes]) => ({ type, attributes }));
  return [{ msg_index: 0, log: '', events }];
}

function timestamp(tx: EmulatorTransaction): string {
  return new Date(tx.completeTs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The Cosmos SDK `GetTxResponse` of an included transaction (docs/kudos-service.md#chain-lookup). */
function getTxResponse(tx: EmulatorTransaction): unknown {
  const failed = tx.status === 'fail';
  const body = {
    messages: chainMessages(tx),
    memo: tx.request.remarks,
    timeout_height: '0',
    extension_options: [],
    non_critical_extension_options: [],
  };
  const authInfo = {
    signer_infos: [],
    fee: { amount: [GAS_FEE], gas_limit: GAS_WANTED, payer: '', granter: '' },
  };
  return {
    tx: { body, auth_info: authInfo, signatures: [] },
    tx_response: {
      height: String(tx.height ?? 0),
      txhash: tx.txHash,
      codespace: failed ? 'sdk' : '',
      code: failed ? 5 : 0,
      data: '',
      raw_log: failed ? 'insufficient funds' : '',
      logs: logsOf(tx),
      info: '',
      gas_wanted: GAS_WANTED,
      gas_used: GAS_USED,
      tx: { '@type': '/cosmos.tx.v1beta1.Tx', body, auth_info: authInfo, signatures: [] },
      timestamp: timestamp(tx),
      events: base64Events(eventsOf(tx)),
    },
  };
}

/**
 * A transaction lookup as the chain's REST (LCD) interface answers it: 400 for a malformed hash,
 * 404 for an unknown one or one not yet (or never) included in a block.
 */
function lookup(state: EmulatorState, ctx: Ctx, answer: (tx: EmulatorTransaction) => unknown): void {
  const hash = safeDecode(ctx.params[0] ?? '') ?? '';
  if (!/^[0-9A-Fa-f]{64}$/.test(hash)) {
    return sendJson(ctx.res, 400, { code: 3, message: `invalid tx hash: ${hash.slice(0, 80)}`, details: [] });
  }
  const tx = state.transactions.get(hash.toUpperCase());
  if (!tx || tx.height === undefined) {
    return sendJson(ctx.res, 404, { code: 5, message: `tx not found: ${hash.toUpperCase()}`, details: [] });
  }
  sendJson(ctx.res, 200, answer(tx));
}

/** The emulated account with this address (either spelling), if any. */
function accountOwner(state: EmulatorState, address: string): string | undefined {
  const account = accountKey(address);
  return [...state.users.keys(), ...state.agents.keys()].find((id) => walletAccount(id) === account);
}

/** `GET .../cosmos/bank/v1beta1/balances/{address}`: `{ balances: [{ denom, amount }] }`, empty at 0. */
function balances(state: EmulatorState, ctx: Ctx): void {
  const owner = accountOwner(state, safeDecode(ctx.params[0] ?? '') ?? '');
  const balance = owner === undefined ? 0n : balanceOf(state, owner);
  sendJson(ctx.res, 200, { balances: balance > 0n ? [{ denom: DENOM, amount: balance.toString() }] : [] });
}

/**
 * The legacy lookup `{lcd}/txs/{hash}` (the old REST shape) is not served since the chain's v4
 * release (mid-2023): its gateway answers 501 (docs/kudos-service.md#chain-lookup).
 */
function legacyLookup(ctx: Ctx): void {
  sendJson(ctx.res, 501, { code: 12, message: 'Not Implemented', details: [] });
}

/** One `events` condition of a search: `type.attribute=value` (the value quoted or not). */
interface EventCondition {
  type: string;
  key: string;
  value: string;
}

/** A condition as the SDK reads it (CHAIN_EVENT_FILTER: no spaces around `=`), or undefined. */
function eventCondition(text: string): EventCondition | undefined {
  if (!CHAIN_EVENT_FILTER.test(text)) return undefined;
  const match = /^([a-zA-Z_]+)\.([a-zA-Z_]+)=(?:'([^']*)'|([^']+))$/.exec(text);
  if (!match) return undefined;
  return { type: match[1] as string, key: match[2] as string, value: (match[3] ?? match[4]) as string };
}

/** A whole number of a query parameter, `fallback` when absent or 0 (the SDK's defaults), undefined when not a number. */
function whole(value: string | null, fallback: number): number | undefined {
  if (value === null || value === '') return fallback;
  if (!/^[0-9]{1,15}$/.test(value)) return undefined;
  return Number(value) || fallback;
}

/** The included transactions whose events meet every condition, oldest first (the chain's own order). */
function matching(state: EmulatorState, conditions: readonly EventCondition[]): EmulatorTransaction[] {
  const found = [...state.transactions.values()].filter(
    (tx) =>
      tx.height !== undefined &&
      conditions.every((c) =>
        eventsOf(tx).some(
          (e) => e.type === c.type && e.attributes.some((a) => a.key === c.key && a.value === c.value),
        ),
      ),
  );
  return found.sort((a, b) => (a.height ?? 0) - (b.height ?? 0) || a.completeTs - b.completeTs);
}

/** The slice of `found` a search asks for, and what the answer says of paging, by `chainSearch`. */
function paged(
  mode: ChainSearchMode,
  params: URLSearchParams,
  count: number,
): { from: number; to: number; paging: Record<string, unknown> } | { error: [number, number, string] } {
  if (mode === 'indexer') {
    const offset = whole(params.get('pagination.offset'), 0);
    const limit = whole(params.get('pagination.limit'), CHAIN_SEARCH_MAX_LIMIT);
    if (offset === undefined || limit === undefined) return { error: [400, 3, 'invalid pagination'] };
    const to = offset + Math.min(limit, CHAIN_SEARCH_MAX_LIMIT);
    return { from: offset, to, paging: { pagination: { next_key: null, total: String(count) } } };
  }
  // The SDK: `page` from 1 and `limit` (default 100, most 100), `pagination.*` ignored; a page past
  // the last is CometBFT's error, not an empty page.
  const page = whole(params.get('page'), 1);
  const limit = whole(params.get('limit'), CHAIN_SEARCH_MAX_LIMIT);
  if (page === undefined || limit === undefined) return { error: [400, 3, 'invalid page or limit'] };
  const perPage = Math.min(limit, CHAIN_SEARCH_MAX_LIMIT);
  const pages = Math.max(1, Math.ceil(count / perPage));
  if (page > pages) return { error: [500, 2, `page should be within [1, ${pages}] range, given ${page}`] };
  const from = (page - 1) * perPage;
  return { from, to: from + perPage, paging: { pagination: null, total: String(count) } };
}

/**
 * `GET {lcd}/cosmos/tx/v1beta1/txs?events=transfer.recipient='ADDRESS'` (docs/kudos-service.md#chain-lookup):
 * the included transactions whose events meet every `events` condition, paged as `chainSearch` says
 * (the SDK by default: `page`/`limit` and a top-level `total`; the indexer: `pagination.offset`/
 * `pagination.limit` and `pagination.total`), `order_by` `ORDER_BY_DESC` for the newest first (else
 * oldest first). A condition with spaces around `=` is refused, as the SDK does.
 */
function search(state: EmulatorState, ctx: Ctx): void {
  const params = ctx.url.searchParams;
  const texts = params.getAll('events');
  const invalid = (status: number, code: number, message: string) =>
    sendJson(ctx.res, status, { code, message, details: [] });
  if (texts.length === 0) return invalid(400, 3, 'must declare at least one event to search');
  const conditions = texts.map(eventCondition);
  const bad = texts.find((_, i) => conditions[i] === undefined);
  if (bad !== undefined) {
    return invalid(
      400,
      3,
      `invalid event; event ${bad.slice(0, 200)} should be of the format: {eventType}.{eventAttribute}={value}`,
    );
  }
  const found = matching(state, conditions as EventCondition[]);
  if (params.get('order_by') === 'ORDER_BY_DESC') found.reverse();
  const slice = paged(state.options.chainSearch, params, found.length);
  if ('error' in slice) return invalid(...slice.error);
  const page = found.slice(slice.from, slice.to).map(getTxResponse) as Array<{
    tx: unknown;
    tx_response: unknown;
  }>;
  sendJson(ctx.res, 200, {
    txs: page.map((entry) => entry.tx),
    tx_responses: page.map((entry) => entry.tx_response),
    ...slice.paging,
  });
}

/**
 * The chain's REST interface under `{baseURL}/cosmos/lcd` (docs/kudos-service.md#chain-lookup):
 * `GET .../cosmos/tx/v1beta1/txs/{hash}` (a `GetTxResponse`), the search by event, the legacy
 * `GET .../txs/{hash}` (501 since the chain's v4 release), and a wallet's bank balances and staking
 * delegations (none: no staking is emulated).
 */
export function chainRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.chainTx, (ctx) => lookup(state, ctx, getTxResponse));
  router.on(ROUTES.chainTxSearch, (ctx) => search(state, ctx));
  router.on(ROUTES.chainTxLegacy, legacyLookup);
  router.on(ROUTES.chainBalances, (ctx) => balances(state, ctx));
  router.on(ROUTES.chainDelegations, (ctx) => sendJson(ctx.res, 200, { delegation_responses: [] }));
}
