import type { KudosPayParameters, KudosRawNotification, KudosRawTx, KudosTxStatus } from 'kudos-core/chain';
import type { MultiSendAmounts } from '../emulator-options.js';
import type { EmulatorTransaction, PaymentRequest } from '../transaction.js';
import { walletAddress } from './ids.js';
import { paymentOutputs, totalCoin } from './payments.js';

/**
 * The service's transaction record (docs/kudos-service.md#notifications): the `tx` of a
 * notification and the answer of `GET {baseURL}/tx/id/{hash}`. One recipient without a fee (a
 * `MsgSend`): `to` and `toId` are strings and `amount` one coin. A `MsgMultiSend` (several
 * receivers, or an agent fee): `to` and `toId` list every output, the agent's fee output too, and
 * `amount` is one coin, their sum (observed), or with `per-output` one coin per output. `completeTs`
 * is written with `success` alone (the service's poller sets it to the block's time; `fail`,
 * `timeout` and `pending` records have none).
 */
export function transactionRecord(
  tx: EmulatorTransaction,
  status: KudosTxStatus = tx.status,
  amounts: MultiSendAmounts = 'total',
): KudosRawTx {
  const outputs = paymentOutputs(tx);
  const [only] = outputs;
  const single = outputs.length === 1 && only !== undefined;
  return {
    from: walletAddress(tx.request.from),
    fromId: tx.request.from,
    to: single ? only.address : outputs.map((o) => o.address),
    toId: single ? only.userId : outputs.map((o) => o.userId),
    amount: single ? only.coin : amounts === 'total' ? totalCoin(outputs) : outputs.map((o) => o.coin),
    ts: tx.ts,
    // Only a success has its block's time: a fail or a timeout, like a pending record, has none.
    ...(status === 'success' ? { completeTs: tx.completeTs } : {}),
    txHash: tx.txHash,
    remarks: tx.request.remarks,
    status,
    type: 'cosmosTransfer',
  };
}

/**
 * The notification's `metadata` (observed): the widget's values, all inside `kudosPay`, each only
 * when it is not empty (no `agentFee` without a fee); `blocking` as the string given.
 */
function paymentMetadata(request: PaymentRequest): { kudosPay: KudosPayParameters } {
  const kudosPay: KudosPayParameters = {
    toIds: [...request.to],
    amounts: [...request.amounts],
    agentId: request.via,
    agentFee: request.given.fee,
    redirectUri: request.given.redirect_uri,
    remarks: request.remarks,
    blocking: request.given.blocking,
    state: request.given.state,
  };
  for (const [key, value] of Object.entries(kudosPay)) {
    if (value === undefined || value === '') delete kudosPay[key];
  }
  return { kudosPay };
}

/** The body POSTed to an agent's webhook: `{ tx, metadata }` (docs/kudos-service.md#notifications). */
export function notificationBody(
  tx: EmulatorTransaction,
  status: KudosTxStatus,
  amounts: MultiSendAmounts,
): KudosRawNotification {
  return { tx: transactionRecord(tx, status, amounts), metadata: paymentMetadata(tx.request) };
}
