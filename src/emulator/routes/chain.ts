import { type Ctx, safeDecode, sendJson } from '../http.js';
import { chainMessages, type EmulatorTransaction } from '../payments.js';
import { ROUTES } from '../route-table.js';
import type { Router } from '../router.js';
import type { EmulatorState } from '../state.js';

/** The Cosmos SDK `GetTxResponse` of an included transaction. */
function txResponse(tx: EmulatorTransaction): unknown {
  const failed = tx.status === 'fail';
  return {
    tx: {
      body: {
        messages: chainMessages(tx.request),
        memo: tx.request.remarks,
        timeout_height: '0',
        extension_options: [],
        non_critical_extension_options: [],
      },
      auth_info: { signer_infos: [], fee: { amount: [], gas_limit: '200000', payer: '', granter: '' } },
      signatures: [],
    },
    tx_response: {
      height: String(tx.height ?? 0),
      txhash: tx.txHash,
      codespace: failed ? 'sdk' : '',
      code: failed ? 5 : 0,
      data: '',
      raw_log: failed ? 'insufficient funds' : '',
      logs: [],
      info: '',
      gas_wanted: '200000',
      gas_used: '81234',
      tx: null,
      timestamp: new Date(tx.completeTs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      events: [],
    },
  };
}

/**
 * Transaction lookup as the chain's REST (LCD) interface answers it: 400 for a malformed hash,
 * 404 for an unknown one or one not yet (or never) included in a block.
 */
function lookup(state: EmulatorState, ctx: Ctx): void {
  const hash = safeDecode(ctx.params[0] ?? '') ?? '';
  if (!/^[0-9A-Fa-f]{64}$/.test(hash)) {
    return sendJson(ctx.res, 400, { code: 3, message: `invalid tx hash: ${hash.slice(0, 80)}`, details: [] });
  }
  const tx = state.transactions.get(hash.toUpperCase());
  if (!tx || tx.height === undefined) {
    return sendJson(ctx.res, 404, { code: 5, message: `tx not found: ${hash.toUpperCase()}`, details: [] });
  }
  sendJson(ctx.res, 200, txResponse(tx));
}

/** `GET {base_url}/cosmos/lcd/cosmos/tx/v1beta1/txs/{hash}` (docs/kudos-service.md#chain-lookup). */
export function chainRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.chainTx, (ctx) => lookup(state, ctx));
}
