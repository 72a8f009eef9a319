import { withoutTrailingSlashes } from '../base/url-path.js';
import { KudosWebhookError } from './errors.js';
import { isObject, type Json } from './parse.js';
import type { KudosConfirmation, KudosNotification } from './types.js';

/** Decides whether a notification is real; may be async. Throwing answers 503, so the sender retries. */
export type KudosConfirmer = (
  notification: KudosNotification,
) => boolean | KudosConfirmation | Promise<boolean | KudosConfirmation>;

/** Options of {@link cosmosConfirmer}. */
export interface CosmosConfirmerOptions {
  /**
   * `{base_url}` of the Kudos API: the chain's REST (LCD) interface is `{baseURL}/cosmos/lcd`
   * (docs/kudos-service.md#chain-lookup). Give this or `restURL`.
   */
  baseURL?: string;
  /** Base URL of the chain's REST (LCD) interface itself, when it is elsewhere; `/cosmos/tx/v1beta1/txs/{hash}` is appended. */
  restURL?: string;
  /**
   * The receiver address the payment must go to, or a function of the notification returning it.
   * Default: any address in the notification's own `tx.to`. Set it to your wallet for a stronger check.
   */
  receiver?: string | ((notification: KudosNotification) => string | undefined);
  /** Time limit of the lookup in milliseconds. Default 5000. */
  timeoutMs?: number;
}

const MSG_SEND = '/cosmos.bank.v1beta1.MsgSend';
const MSG_MULTI_SEND = '/cosmos.bank.v1beta1.MsgMultiSend';

function unavailable(message: string, cause?: unknown): KudosWebhookError {
  return new KudosWebhookError('confirmation_unavailable', message, undefined, cause);
}

function messagesOf(body: Json): Json[] {
  const tx = isObject(body.tx) ? body.tx : {};
  const txBody = isObject(tx.body) ? tx.body : {};
  return Array.isArray(txBody.messages) ? txBody.messages.filter(isObject) : [];
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

/**
 * What each address got of `denom` from the payer, by the bank messages: a `MsgSend`, or a
 * `MsgMultiSend` (a payment with an agent fee or to several receivers, docs/kudos-service.md#payment-widget)
 * whose inputs include the payer. With no payer address in the notification, any sender counts.
 */
function paidOnChain(messages: Json[], from: string | null, denom: string): Map<string, bigint> {
  const paid = new Map<string, bigint>();
  const add = (address: unknown, coins: unknown) => {
    if (typeof address === 'string') paid.set(address, (paid.get(address) ?? 0n) + coinsOf(coins, denom));
  };
  for (const message of messages) {
    if (message['@type'] === MSG_SEND && (from === null || message.from_address === from)) {
      add(message.to_address, message.amount);
    } else if (
      message['@type'] === MSG_MULTI_SEND &&
      (from === null || listOf(message.inputs).some((input) => input.address === from))
    ) {
      for (const output of listOf(message.outputs)) add(output.address, output.coins);
    }
  }
  return paid;
}

/**
 * Checks a looked-up transaction against the notification; pure. The payer's transfers to the
 * notification's outputs (`tx.to`) must add up to its amount, and each of `receivers` must be one of
 * them, paid its own amount when the notification gives one (else anything above 0).
 */
function checkChainTransaction(
  body: unknown,
  notification: KudosNotification,
  receivers: readonly string[],
): KudosConfirmation {
  if (!isObject(body) || !isObject(body.tx_response))
    return { confirmed: false, reason: 'lookup answer has no tx_response' };
  const response = body.tx_response;
  if (response.code !== 0)
    return { confirmed: false, reason: `transaction failed on chain (code ${String(response.code)})` };
  if (!(Number(response.height) > 0)) return { confirmed: false, reason: 'transaction is not in a block' };
  if (typeof response.txhash !== 'string' || response.txhash.toUpperCase() !== notification.tx.txHash) {
    return { confirmed: false, reason: 'transaction hash differs' };
  }
  const { tx } = notification;
  if (tx.to.length === 0) return { confirmed: false, reason: 'the notification names no receiver' };
  const paid = paidOnChain(messagesOf(body), tx.from, tx.amount.denom);
  const total = [...new Set(tx.to)].reduce((sum, address) => sum + (paid.get(address) ?? 0n), 0n);
  if (total !== tx.amount.value) {
    return { confirmed: false, reason: 'the transfers on chain do not add up to the notified amount' };
  }
  for (const address of receivers) {
    const outputs = tx.outputs.filter((output) => output.address === address);
    if (outputs.length === 0)
      return { confirmed: false, reason: 'the notification does not pay the expected receiver' };
    const owed = outputs.every((o) => o.amount !== null)
      ? outputs.reduce((sum, o) => sum + (o.amount?.value ?? 0n), 0n)
      : undefined;
    const got = paid.get(address) ?? 0n;
    if (owed === undefined ? got <= 0n : got !== owed) {
      return { confirmed: false, reason: 'no bank transfer of the notified amount to the receiver' };
    }
  }
  return { confirmed: true };
}

/**
 * A confirmer that looks the transaction up on the chain's REST interface and checks that it
 * succeeded (`code` 0) in a block (`height` > 0) with the same hash, that the payer's bank
 * transfers (`MsgSend` or `MsgMultiSend`) to the notification's outputs add up to its amount, and
 * that they pay the expected receiver (default: every output of the notification) its own amount
 * when the notification gives one.
 *
 * Only `success` notifications are looked up; others are not confirmed (nothing is paid yet).
 * A transaction the chain does not know yet, or a lookup that fails, throws: the receiver then
 * answers 503 and the sender redelivers later.
 */
export function cosmosConfirmer(options: CosmosConfirmerOptions): KudosConfirmer {
  const restURL =
    options?.restURL ??
    (typeof options?.baseURL === 'string'
      ? `${withoutTrailingSlashes(options.baseURL)}/cosmos/lcd`
      : undefined);
  if (typeof restURL !== 'string' || !URL.canParse(restURL)) {
    throw new TypeError(
      'cosmosConfirmer requires "baseURL" (the Kudos API) or "restURL" (the chain\'s LCD), an absolute URL',
    );
  }
  const base = withoutTrailingSlashes(restURL);
  const timeoutMs = options.timeoutMs ?? 5000;
  return async (notification) => {
    if (notification.tx.status !== 'success') {
      return { confirmed: false, reason: `status is ${notification.tx.status}` };
    }
    const expected =
      typeof options.receiver === 'function' ? options.receiver(notification) : options.receiver;
    const receivers = expected === undefined ? notification.tx.to : [expected];
    let res: Response;
    try {
      res = await fetch(`${base}/cosmos/tx/v1beta1/txs/${notification.tx.txHash}`, {
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: 'application/json' },
      });
    } catch (cause) {
      throw unavailable('transaction lookup failed', cause);
    }
    if (res.status === 404) throw unavailable('transaction not found on the chain yet');
    if (!res.ok) throw unavailable(`transaction lookup answered HTTP ${res.status}`);
    let body: unknown;
    try {
      body = await res.json();
    } catch (cause) {
      throw unavailable('transaction lookup answered something other than JSON', cause);
    }
    return checkChainTransaction(body, notification, receivers);
  };
}
