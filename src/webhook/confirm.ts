import { withoutTrailingSlashes } from '../url-path.js';
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

function hasCoin(coins: unknown, amount: string, denom: string): boolean {
  return (
    Array.isArray(coins) &&
    coins.filter(isObject).some((coin) => coin.denom === denom && coin.amount === amount)
  );
}

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/**
 * Whether a bank message pays `address` the `amount` from `from`: a `MsgSend`, or a `MsgMultiSend`
 * (a payment with an agent fee or to several receivers, docs/kudos-service.md#payment-widget) whose
 * inputs include the payer and whose outputs give the receiver its own amount.
 */
function pays(message: Json, from: string, address: string, amount: string, denom: string): boolean {
  if (message['@type'] === MSG_SEND) {
    return (
      message.from_address === from &&
      message.to_address === address &&
      hasCoin(message.amount, amount, denom)
    );
  }
  if (message['@type'] === MSG_MULTI_SEND) {
    return (
      listOf(message.inputs).some((input) => input.address === from) &&
      listOf(message.outputs).some(
        (output) => output.address === address && hasCoin(output.coins, amount, denom),
      )
    );
  }
  return false;
}

/**
 * Checks a looked-up transaction against the notification; pure. Each of `receivers` must be a
 * receiver of the notification, paid its own amount on chain by the payer.
 */
export function checkChainTransaction(
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
  const total = tx.amounts.reduce((sum, a) => sum + a.value, 0n);
  if (tx.amounts.length !== tx.to.length || total !== tx.amount.value) {
    return { confirmed: false, reason: "the notification's amounts do not add up to its amount" };
  }
  const messages = messagesOf(body);
  for (const address of receivers) {
    const index = tx.to.indexOf(address);
    const owed = tx.amounts[index];
    if (!owed) return { confirmed: false, reason: 'the notification does not pay the expected receiver' };
    if (!messages.some((m) => pays(m, tx.from, address, owed.amount, owed.denom))) {
      return { confirmed: false, reason: 'no bank transfer of the notified amount to the receiver' };
    }
  }
  return { confirmed: true };
}

/**
 * A confirmer that looks the transaction up on the chain's REST interface and checks that it
 * succeeded (`code` 0) in a block (`height` > 0) with the same hash, and that a bank `MsgSend` or
 * `MsgMultiSend` from the payer pays the expected receiver (default: every receiver of the
 * notification) its notified amount and denom.
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
