import {
  apiPath,
  chainRestURL,
  checkPositive,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  DENOM,
  endpointGone,
  type HttpAnswer,
  type HttpCall,
  isDocumentedNotFound,
  isOk,
  jsonOf,
  KUDOS_CHAIN,
  request,
  shownURL,
  withoutTrailingSlashes,
} from 'kudos-core';
import { accountKey, checkAddress } from 'kudos-core/chain';
import { blockTimeOf, bodyOf, chainAnswerOf, paidOnChain } from './chain-tx.js';
import { KudosNotificationError } from './errors.js';
import { isObject } from './parse.js';
import type { KudosConfirmation, KudosNotification } from './types.js';

/** Decides whether a notification is real; may be async. Throwing answers 503, so the sender retries. */
export type KudosConfirmer = (
  notification: KudosNotification,
) => boolean | KudosConfirmation | Promise<boolean | KudosConfirmation>;

/** Options of {@link cosmosConfirmer}. */
export interface CosmosConfirmerOptions {
  /**
   * `{baseURL}` of the Kudos API: the chain's REST (LCD) interface is `{baseURL}/cosmos/lcd`
   * (docs/kudos-service.md#chain-lookup). Give this or `restURL`.
   */
  baseURL?: string;
  /** Base URL of the chain's REST (LCD) interface itself, when it is elsewhere; `/cosmos/tx/v1beta1/txs/{hash}` is appended. */
  restURL?: string;
  /**
   * Required: the shop's own wallet address, or several, in either spelling (`kudos1…` or its legacy
   * `cosmos1…`: the same account; docs/kudos-service.md#wallet-addresses). Checked here: a bech32 address
   * with a valid checksum, else a `TypeError`. A notification is `paid` only when the chain shows the
   * payer's transfer to one of these accounts, and `received` is what they got. Never taken from the
   * notification: a payer who edits the widget link (`to=` his own second account, `via=` your
   * agent) makes the service notify you of a real transaction that pays someone else.
   */
  wallet: string | readonly string[];
  /** Time limit of the lookup in milliseconds. Default 10000, as every request of the package. */
  timeoutMs?: number;
  /** Largest lookup answer read, in bytes (a transaction is a few kB); default 4 MiB, as the API client. */
  maxResponseBytes?: number;
  /**
   * The one denomination that counts as money, compared exactly (case included). Default
   * `nanokudos`, the service's own; name another only for a test chain. A notification in any other
   * denomination is not paid, and coins of another denomination never add to `received`.
   */
  denom?: string;
}

function unavailable(message: string, cause?: unknown): KudosNotificationError {
  return new KudosNotificationError('confirmation_unavailable', { message, cause });
}

/**
 * A 404 of the lookup: the chain's own "no such transaction" (JSON with a `code`) means not in a block
 * yet; anything else (an HTML page) means no chain answers at that URL, which waiting never mends.
 */
function notFound(answer: HttpAnswer, url: string, lcd: string): KudosNotificationError {
  if (isDocumentedNotFound(answer, 'chain')) return unavailable('transaction not found on the chain yet');
  // The message names the LCD, not the transaction: the same for every lookup, told once.
  const hint = `No chain REST (LCD) interface answers at ${shownURL(lcd)}: set "restURL" to a chain node's REST interface (the service's {baseURL}/cosmos/lcd proxy is gone since 2026-05-21).`;
  return new KudosNotificationError('endpoint_gone', {
    message: `the chain's transaction lookup answered 404 that no chain answers. ${hint}`,
    cause: endpointGone(url, answer, 'the transaction lookup', hint),
  });
}

/** A verdict of the chain's record against a notification it contradicts. */
function contradicted(reason: string): KudosConfirmation {
  return { confirmed: false, reason, contradicted: true };
}

/**
 * Checks a looked-up transaction against the notification; pure. It must have succeeded in a block
 * under the same hash, and the payer's transfers to the notification's outputs (`tx.to`), in its own
 * denomination, must add up to its amount: else the chain contradicts it. A notification the chain
 * bears out is then confirmed when it is in `denom` and pays the shop's `wallets` (only those: an
 * agent's fee or another recipient's part is not the shop's): `received` is what they got.
 */
function checkChainTransaction(
  body: unknown,
  notification: KudosNotification,
  wallets: ReadonlySet<string>,
  denom: string,
): KudosConfirmation {
  if (!isObject(body) || !isObject(body.tx_response)) return contradicted('lookup answer has no tx_response');
  const response = body.tx_response;
  if (response.code !== 0) return contradicted(`transaction failed on chain (code ${String(response.code)})`);
  if (!(Number(response.height) > 0)) return contradicted('transaction is not in a block');
  if (typeof response.txhash !== 'string' || response.txhash.toUpperCase() !== notification.tx.txHash) {
    return contradicted('transaction hash differs');
  }
  const { tx } = notification;
  if (tx.to.length === 0) return contradicted('the notification names no recipient');
  const paid = paidOnChain(bodyOf(body).messages, tx.from, tx.amount.denom);
  const notified = new Set(tx.to.map(accountKey));
  const total = [...notified].reduce((sum, account) => sum + (paid.byAccount.get(account) ?? 0n), 0n);
  if (total !== tx.amount.value) {
    return contradicted('the transfers on chain do not add up to the notified amount');
  }
  // Another denomination is not the service's money (an IBC voucher, a token of the same name in
  // other letters): never paid, however real.
  if (tx.amount.denom !== denom) {
    return { confirmed: false, reason: `the amount is in "${tx.amount.denom}", not "${denom}"` };
  }
  let received = 0n;
  for (const account of wallets) received += paid.byAccount.get(account) ?? 0n;
  if (received <= 0n) {
    // A real payment that went elsewhere: said with the addresses it reached, so that a shop whose
    // `wallet` is not its wallet (a mistake, an old wallet) can see it (payments: not_to_wallet).
    return {
      confirmed: false,
      reason: `the transaction pays none of the shop's wallets (it paid ${paid.addresses.join(', ')})`,
      received: 0n,
      paidTo: paid.addresses,
    };
  }
  return { confirmed: true, received };
}

/** The `denom` option of the call named by `where`, checked: the default is the service's own. */
export function checkDenom(denom: unknown, where: string): string {
  if (denom === undefined) return DENOM;
  if (typeof denom !== 'string' || denom === '') {
    throw new TypeError(`${where} option "denom" must be a non-empty string (default "${DENOM}")`);
  }
  return denom;
}

/**
 * The `wallet` option as a set of accounts: each a wallet address of the chain in either spelling
 * (bech32, checksum checked). A `TypeError` naming `wallet` and what is wrong: a mistyped address
 * would make every payment miss the shop.
 */
export function checkWallets(wallet: unknown, where: string): ReadonlySet<string> {
  const list: unknown[] = typeof wallet === 'string' ? [wallet] : Array.isArray(wallet) ? wallet : [];
  if (list.length === 0) {
    throw new TypeError(
      `${where} requires "wallet": your shop's wallet address (or a list of them); without it a payment to anyone would count as paid`,
    );
  }
  const accounts = new Set<string>();
  list.forEach((address, i) => {
    const read = checkAddress(address);
    if (!read.ok) {
      const name = typeof wallet === 'string' ? '"wallet"' : `"wallet"[${i}]`;
      throw new TypeError(
        `${where} option ${name} must be a wallet address ("kudos1…" or "cosmos1…"): it ${read.problem}`,
      );
    }
    accounts.add(read.account);
  });
  return accounts;
}

/**
 * A confirmer that looks the transaction up on the chain's REST interface and checks that it
 * succeeded (`code` 0) in a block (`height` > 0) with the same hash, that the payer's bank
 * transfers (`MsgSend` or `MsgMultiSend`) to the notification's outputs add up to its amount, and
 * that they pay at least one of the shop's own `wallet` accounts (in either spelling), in `denom` (`nanokudos`). The
 * notification's `received` is then what those addresses got (bigint, in that denomination only),
 * and its `memo` the transaction's memo as the chain records it.
 *
 * Only `success` notifications are looked up; others are not confirmed (nothing is paid yet). One
 * the chain contradicts (another amount, denomination or recipient) is `contradicted`: it decides
 * nothing. A transaction the chain does not know yet, or a lookup that fails, throws: the receiver
 * then answers 503 and the sender redelivers later.
 */
export function cosmosConfirmer(options: CosmosConfirmerOptions): KudosConfirmer {
  const restURL = chainRestURL(options?.restURL, options?.baseURL);
  if (typeof restURL !== 'string' || !URL.canParse(restURL)) {
    throw new TypeError(
      'cosmosConfirmer requires "baseURL" (the Kudos API) or "restURL" (the chain\'s LCD), an absolute URL',
    );
  }
  return chainConfirmer({
    lcd: withoutTrailingSlashes(restURL),
    wallets: checkWallets(options.wallet, 'cosmosConfirmer'),
    denom: checkDenom(options.denom, 'cosmosConfirmer'),
    timeoutMs: checkPositive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'cosmosConfirmer option "timeoutMs"'),
    maxBytes: checkPositive(
      options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      'cosmosConfirmer option "maxResponseBytes"',
      { whole: true },
    ),
  });
}

/** What a chain confirmer reads with, checked once: `kudosPayments()` makes it from its own settings. */
export interface ConfirmPlan {
  /** The chain's REST interface, without trailing slashes. */
  lcd: string;
  wallets: ReadonlySet<string>;
  denom: string;
  timeoutMs: number;
  maxBytes: number;
}

/** The lookup of the confirmer: the chain's answer; every failure a retryable `KudosNotificationError`. */
async function lookUp(call: HttpCall, base: string): Promise<unknown> {
  try {
    const answer = await request(call);
    if (answer.status === 404) throw notFound(answer, call.url, base);
    if (!isOk(answer.status)) {
      throw unavailable(`transaction lookup answered HTTP ${answer.status}`);
    }
    return jsonOf(answer, call);
  } catch (cause) {
    if (cause instanceof KudosNotificationError) throw cause;
    throw unavailable(
      `transaction lookup failed: ${cause instanceof Error ? cause.message : 'failed'}`,
      cause,
    );
  }
}

/** The confirmer of {@link cosmosConfirmer}, from a checked plan. */
export function chainConfirmer(plan: ConfirmPlan): KudosConfirmer {
  const { lcd: base, wallets, denom, timeoutMs, maxBytes } = plan;
  return async (notification) => {
    if (notification.tx.status !== 'success') {
      return { confirmed: false, reason: `status is ${notification.tx.status}` };
    }
    // Through the HTTP client (its time limit, cap and JSON), capped: a chain node (or whoever answers
    // in its place) must not make the receiver read 200 MB. Any failure is the confirmer's: 503, retried.
    const call: HttpCall = {
      service: 'api',
      what: `GET ${KUDOS_CHAIN.tx}`,
      url: `${base}${apiPath(KUDOS_CHAIN.tx, { hash: notification.tx.txHash })}`,
      headers: { accept: 'application/json' },
      timeoutMs,
      maxBytes,
    };
    // A transaction the chain reconcile read from this node's search is not asked for again.
    let body: unknown = chainAnswerOf(notification, base);
    if (body === undefined) body = await lookUp(call, base);
    // The memo as the chain records it, with the verdict: what names an order, whatever the
    // notification says; and when its block was made: when it was paid.
    const memo = isObject(body) ? bodyOf(body).memo : undefined;
    const blockTime = blockTimeOf(body);
    const verdict = checkChainTransaction(body, notification, wallets, denom);
    return {
      ...verdict,
      ...(memo === undefined ? {} : { memo }),
      ...(blockTime === undefined ? {} : { blockTime }),
    };
  };
}
