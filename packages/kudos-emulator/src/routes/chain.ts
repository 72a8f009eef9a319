import { accountKey, DENOM } from 'passport-kudos/contract';
import { balanceOf } from '../model/balances.js';
import { walletAccount, walletAddress } from '../model/ids.js';
import { chainMessages, type EmulatorTransaction, paymentOutputs } from '../model/payments.js';
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

/** The `transfer` events of a payment: one per output, naming recipient, sender and amount (plain text). */
function transferEvents(tx: EmulatorTransaction): ChainEvent[] {
  const sender = walletAddress(tx.request.from);
  return paymentOutputs(tx).map((output) => ({
    type: 'transfer',
    attributes: [
      { key: 'recipient', value: output.address, index: true },
      { key: 'sender', value: sender, index: true },
      { key: 'amount', value: `${output.coin.amount}${output.coin.denom}`, index: true },
    ],
  }));
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
  const attributes = transferEvents(tx).flatMap((event) =>
    event.attributes.map(({ key, value }) => ({ key, value })),
  );
  return [{ msg_index: 0, log: '', events: [{ type: 'transfer', attributes }] }];
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
  const authInfo = { signer_infos: [], fee: { amount: [], gas_limit: GAS_WANTED, payer: '', granter: '' } };
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
      events: failed ? [] : base64Events(transferEvents(tx)),
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

/** A search's `events` condition `transfer.recipient='ADDRESS'` (or `sender`): what and whom, or undefined. */
function eventCondition(text: string): { key: 'recipient' | 'sender'; address: string } | undefined {
  const match = /^transfer\.(recipient|sender)\s*=\s*'?([a-z0-9]{1,100})'?$/.exec(text.trim());
  return match ? { key: match[1] as 'recipient' | 'sender', address: match[2] as string } : undefined;
}

/** A page size or offset of the search: a whole number, or `fallback` when absent. */
function whole(value: string | null, fallback: number): number | undefined {
  if (value === null || value === '') return fallback;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * `GET {lcd}/cosmos/tx/v1beta1/txs?events=transfer.recipient='ADDRESS'` (docs/kudos-service.md#chain-lookup):
 * the included transactions whose transfer events name that address as spelled, paged by
 * `pagination.offset` and `pagination.limit` (default and most 100), `order_by` `ORDER_BY_DESC` for
 * the newest first (else oldest first): `{ txs, tx_responses, pagination: { next_key, total } }`.
 */
function search(state: EmulatorState, ctx: Ctx): void {
  const params = ctx.url.searchParams;
  const conditions = params.getAll('events').map(eventCondition);
  const invalid = (message: string) => sendJson(ctx.res, 400, { code: 3, message, details: [] });
  if (conditions.length === 0) return invalid('must declare at least one event to search');
  if (conditions.some((c) => c === undefined)) return invalid('invalid event query');
  const offset = whole(params.get('pagination.offset'), 0);
  const limit = whole(params.get('pagination.limit'), 100);
  if (offset === undefined || limit === undefined) return invalid('invalid pagination');
  const matches = (tx: EmulatorTransaction) =>
    tx.height !== undefined &&
    tx.status === 'success' &&
    conditions.every((c) =>
      transferEvents(tx).some((event) =>
        event.attributes.some((a) => a.key === c?.key && a.value === c.address),
      ),
    );
  const found = [...state.transactions.values()].filter(matches);
  found.sort((a, b) => (a.height ?? 0) - (b.height ?? 0) || a.completeTs - b.completeTs);
  if (params.get('order_by') === 'ORDER_BY_DESC') found.reverse();
  const page = found.slice(offset, offset + Math.min(limit || 100, 100)).map(getTxResponse) as Array<{
    tx: unknown;
    tx_response: unknown;
  }>;
  sendJson(ctx.res, 200, {
    txs: page.map((entry) => entry.tx),
    tx_responses: page.map((entry) => entry.tx_response),
    pagination: { next_key: null, total: String(found.length) },
  });
}

/**
 * The chain's REST interface under `{base_url}/cosmos/lcd` (docs/kudos-service.md#chain-lookup):
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
