import { DENOM } from 'kudos-core';
import { accountKey } from 'kudos-core/chain';
import { balanceOf } from '../model/balances.js';
import { getTxResponse } from '../model/chain-tx.js';
import { walletAccount } from '../model/ids.js';
import type { EmulatorTransaction } from '../model/payments.js';
import { type Ctx, safeDecode, sendJson } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import type { EmulatorState } from '../state.js';
import { chainSearch } from './chain-search.js';

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

/**
 * The chain's REST interface under `{baseURL}/cosmos/lcd` (docs/kudos-service.md#chain-lookup):
 * `GET .../cosmos/tx/v1beta1/txs/{hash}` (a `GetTxResponse`), the search by event, the legacy
 * `GET .../txs/{hash}` (501 since the chain's v4 release), and a wallet's bank balances and staking
 * delegations (none: no staking is emulated).
 */
export function chainRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.chainTx, (ctx) => lookup(state, ctx, getTxResponse));
  router.on(ROUTES.chainTxSearch, (ctx) => chainSearch(state, ctx));
  router.on(ROUTES.chainTxLegacy, legacyLookup);
  router.on(ROUTES.chainBalances, (ctx) => balances(state, ctx));
  router.on(ROUTES.chainDelegations, (ctx) => sendJson(ctx.res, 200, { delegation_responses: [] }));
}
