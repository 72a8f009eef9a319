// What a chain transaction says, as the chain's REST (LCD) interface answers it (a `GetTxResponse`, or
// one entry of its search by event): its bank messages, its memo, its block's time, and what the payer
// gave each account. Read by the confirmer (is this notification real?) and by the chain reconcile
// (what paid the shop?), so both read a transaction the same way.
import { accountKey } from 'kudos-core/chain';
import { isObject, type Json } from './parse.js';

const MSG_SEND = '/cosmos.bank.v1beta1.MsgSend';
const MSG_MULTI_SEND = '/cosmos.bank.v1beta1.MsgMultiSend';

/** The transaction's body as the chain holds it: its messages and its memo. */
export function bodyOf(body: Json): { messages: Json[]; memo: string | undefined } {
  const tx = isObject(body.tx) ? body.tx : {};
  const txBody = isObject(tx.body) ? tx.body : {};
  return {
    messages: Array.isArray(txBody.messages) ? txBody.messages.filter(isObject) : [],
    memo: typeof txBody.memo === 'string' ? txBody.memo : undefined,
  };
}

/** The block's time of a lookup answer (`tx_response.timestamp`, RFC 3339), epoch milliseconds. */
export function blockTimeOf(body: unknown): number | undefined {
  const response = isObject(body) && isObject(body.tx_response) ? body.tx_response : undefined;
  const time = typeof response?.timestamp === 'string' ? Date.parse(response.timestamp) : Number.NaN;
  return Number.isFinite(time) ? time : undefined;
}

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** The amount of `denom` in a list of coins, exact. */
function coinsOf(coins: unknown, denom: string): bigint {
  let sum = 0n;
  for (const coin of listOf(coins)) {
    if (coin.denom === denom && typeof coin.amount === 'string' && /^[0-9]{1,78}$/.test(coin.amount)) {
      sum += BigInt(coin.amount);
    }
  }
  return sum;
}

/** What the payer's transfers gave each account, and the addresses as the chain spells them. */
export interface PaidOnChain {
  /** By account ({@link accountKey}): either spelling of an address is the same entry. */
  byAccount: Map<string, bigint>;
  /** Every address paid, as the chain spells it, in the order of the messages. */
  addresses: string[];
}

/**
 * What each account got of `denom` from the payer, by the bank messages: a `MsgSend`, or a
 * `MsgMultiSend` (a payment with an agent fee or to several recipients, docs/kudos-service.md#payment-widget)
 * whose inputs include the payer. With no payer address in the notification, any sender counts.
 * Addresses are compared as accounts: the payer may have signed in either spelling.
 */
export function paidOnChain(messages: Json[], from: string | null, denom: string): PaidOnChain {
  const paid: PaidOnChain = { byAccount: new Map(), addresses: [] };
  const payer = from === null ? undefined : accountKey(from);
  const isPayer = (address: unknown) =>
    payer === undefined || (typeof address === 'string' && accountKey(address) === payer);
  const add = (address: unknown, coins: unknown) => {
    if (typeof address !== 'string') return;
    const key = accountKey(address);
    paid.byAccount.set(key, (paid.byAccount.get(key) ?? 0n) + coinsOf(coins, denom));
    if (!paid.addresses.includes(address)) paid.addresses.push(address);
  };
  for (const message of messages) {
    if (message['@type'] === MSG_SEND && isPayer(message.from_address)) {
      add(message.to_address, message.amount);
    } else if (
      message['@type'] === MSG_MULTI_SEND &&
      listOf(message.inputs).some((input) => isPayer(input.address))
    ) {
      for (const output of listOf(message.outputs)) add(output.address, output.coins);
    }
  }
  return paid;
}

/** The first payer of a transaction's bank messages: a `MsgSend`'s sender, or a `MsgMultiSend`'s first input. */
function payerOf(messages: Json[]): string | undefined {
  for (const message of messages) {
    if (message['@type'] === MSG_SEND && typeof message.from_address === 'string')
      return message.from_address;
    if (message['@type'] === MSG_MULTI_SEND) {
      const input = listOf(message.inputs)[0];
      if (typeof input?.address === 'string') return input.address;
    }
  }
  return undefined;
}

/**
 * A transaction found on the chain as the service's record of it (a notification's `tx`): the payer,
 * every address the payer's transfers reached and their sum in `denom`, the memo, the block's time.
 * Undefined when it did not succeed in a block or moved none of `denom`: nothing to decide. The
 * confirmer then checks it against the chain again, as it checks any notification.
 */
export function chainRecord(found: unknown, denom: string): Json | undefined {
  if (!isObject(found) || !isObject(found.tx_response)) return undefined;
  const response = found.tx_response;
  if (response.code !== 0 || !(Number(response.height) > 0) || typeof response.txhash !== 'string') {
    return undefined;
  }
  const { messages, memo } = bodyOf(found);
  const from = payerOf(messages);
  const time = blockTimeOf(found);
  if (from === undefined || time === undefined) return undefined;
  const paid = paidOnChain(messages, from, denom);
  const total = [...paid.byAccount.values()].reduce((sum, units) => sum + units, 0n);
  if (total <= 0n) return undefined;
  return {
    txHash: response.txhash.toUpperCase(),
    status: 'success',
    type: 'cosmosTransfer',
    from,
    fromId: null,
    to: paid.addresses.length === 1 ? paid.addresses[0] : paid.addresses,
    toId: null,
    amount: { amount: total.toString(), denom },
    remarks: memo ?? '',
    ts: time,
    completeTs: time,
  };
}

/**
 * The chain's own answer for a notification that the chain reconcile found in the chain's search:
 * the confirmer of the same chain node reads it instead of asking the node again for the same
 * transaction (a search entry is the `GetTxResponse` a lookup by hash answers).
 */
const chainAnswers = new WeakMap<object, { lcd: string; body: unknown }>();

/** Remembers what `lcd` answered for `notification`'s transaction, for as long as the notification lives. */
export function rememberChainAnswer(notification: object, lcd: string, body: unknown): void {
  chainAnswers.set(notification, { lcd, body });
}

/** What `lcd` answered already for `notification`'s transaction; undefined when it was not asked. */
export function chainAnswerOf(notification: object, lcd: string): unknown {
  const known = chainAnswers.get(notification);
  return known?.lcd === lcd ? known.body : undefined;
}
