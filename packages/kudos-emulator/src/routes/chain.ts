import { accountKey, DENOM, UNITS_PER_TOKEN } from 'passport-kudos/contract';
import { walletAccount, walletAddress } from '../model/ids.js';
import { chainMessages, type EmulatorTransaction, paymentOutputs, totalCoin } from '../model/payments.js';
import { type Ctx, safeDecode, sendJson } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import type { EmulatorState } from '../state.js';

const GAS_WANTED = '200000';

/** What every emulated account's wallet starts with: 10,000 tokens (the emulator's choice). */
const STARTING_BALANCE = 10_000n * UNITS_PER_TOKEN;
const GAS_USED = '81234';

/** The `transfer` events of a payment: one per output, naming recipient, sender and amount. */
function transferEvents(tx: EmulatorTransaction): Array<{ type: string; attributes: unknown[] }> {
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

/** The logs of a successful transaction: the events of its one message, grouped by type as the SDK does. */
function logsOf(tx: EmulatorTransaction): unknown[] {
  if (tx.status === 'fail') return [];
  const attributes = transferEvents(tx).flatMap((event) =>
    event.attributes.map((a) => {
      const { key, value } = a as { key: string; value: string };
      return { key, value };
    }),
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
      events: failed ? [] : transferEvents(tx),
    },
  };
}

/** A bank message in the legacy (amino JSON) form of the old REST interface. */
function legacyMessage(message: unknown): unknown {
  const { '@type': type, ...value } = message as Record<string, unknown>;
  return {
    type: type === '/cosmos.bank.v1beta1.MsgSend' ? 'cosmos-sdk/MsgSend' : 'cosmos-sdk/MsgMultiSend',
    value,
  };
}

/** The old Cosmos REST answer of `GET /txs/{hash}`: the documented legacy lookup. */
function legacyTxResponse(tx: EmulatorTransaction): unknown {
  const failed = tx.status === 'fail';
  return {
    height: String(tx.height ?? 0),
    txhash: tx.txHash,
    ...(failed ? { code: 5, codespace: 'sdk' } : {}),
    raw_log: failed ? 'insufficient funds' : JSON.stringify(logsOf(tx)),
    // The old shape marks each message's log: older pollers read `logs[0].success` (observed).
    logs: logsOf(tx).map((log) => ({ ...(log as object), success: true })),
    gas_wanted: GAS_WANTED,
    gas_used: GAS_USED,
    tx: {
      type: 'cosmos-sdk/StdTx',
      value: {
        msg: chainMessages(tx).map(legacyMessage),
        fee: { amount: [], gas: GAS_WANTED },
        signatures: [],
        memo: tx.request.remarks,
      },
    },
    timestamp: timestamp(tx),
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

/**
 * What a wallet holds of the denomination: an emulated account's starting balance (the emulator's
 * choice, docs/kudos-service.md#chain-lookup), plus what successful payments gave it, minus what it
 * paid (every output of its payments).
 */
function balanceOf(state: EmulatorState, address: string): bigint {
  // An account in either spelling (docs/kudos-service.md#wallet-addresses).
  const account = accountKey(address);
  const ids = [...state.users.keys(), ...state.agents.keys()];
  let balance = ids.some((id) => walletAccount(id) === account) ? STARTING_BALANCE : 0n;
  for (const tx of state.transactions.values()) {
    if (tx.status !== 'success') continue;
    const outputs = paymentOutputs(tx);
    if (walletAccount(tx.request.from) === account) balance -= BigInt(totalCoin(outputs).amount);
    for (const output of outputs) {
      if (accountKey(output.address) === account) balance += BigInt(output.coin.amount);
    }
  }
  return balance;
}

/** `GET .../cosmos/bank/v1beta1/balances/{address}`: `{ balances: [{ denom, amount }] }`, empty at 0. */
function balances(state: EmulatorState, ctx: Ctx): void {
  const address = safeDecode(ctx.params[0] ?? '') ?? '';
  const balance = balanceOf(state, address);
  sendJson(ctx.res, 200, { balances: balance > 0n ? [{ denom: DENOM, amount: balance.toString() }] : [] });
}

/**
 * The chain's REST interface under `{base_url}/cosmos/lcd` (docs/kudos-service.md#chain-lookup):
 * `GET .../cosmos/tx/v1beta1/txs/{hash}` (a `GetTxResponse`), the legacy `GET .../txs/{hash}`, and a
 * wallet's bank balances and staking delegations (none: no staking is emulated).
 */
export function chainRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.chainTx, (ctx) => lookup(state, ctx, getTxResponse));
  router.on(ROUTES.chainTxLegacy, (ctx) => lookup(state, ctx, legacyTxResponse));
  router.on(ROUTES.chainBalances, (ctx) => balances(state, ctx));
  router.on(ROUTES.chainDelegations, (ctx) => sendJson(ctx.res, 200, { delegation_responses: [] }));
}
