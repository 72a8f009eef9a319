import type { KudosWebhookHandler } from '../adapters/node.js';
import type { KudosDedupeStore, KudosUnprocessedNotification } from '../core/dedupe.js';
import type { KudosNotificationSource } from '../core/types.js';
import type { KudosReceiverOptions } from '../options.js';
import type { KudosReconcileResult } from '../recovery/reconcile.js';
import type { KudosRedriveResult } from '../recovery/recovery.js';
import type { KudosReceiverStatus } from '../recovery/status.js';
import type { KudosOrderStore } from './order-store.js';
import type { KudosOrder, KudosPaymentProblem } from './records.js';

/** Options of {@link kudosPayments}. */
export interface KudosPaymentsOptions {
  /** The webhook secret, as for `kudosWebhook()`. With `false`, a notification's metadata is not trusted. */
  secret: string | readonly string[] | false;
  /** `{authURL}`: the widget links are made under it. */
  authURL: string;
  /** `{baseURL}` of the Kudos API: transaction records, and the chain under `{baseURL}/cosmos/lcd`. */
  baseURL: string;
  /** The chain's REST (LCD) interface, when it is not under `baseURL`: an absolute URL without credentials. */
  restURL?: string;
  /**
   * The shop's own wallet address(es), in either spelling (`kudos1…` or the legacy `cosmos1…`: the
   * same account): an order is paid only by what the chain shows reaching them. Checked when the
   * payments API is made (a mistyped address is a `TypeError`). Never taken from a notification.
   */
  wallet: string | readonly string[];
  /**
   * The shop's Kudos user ID: the widget link's `to`, whose wallet is `wallet`. A user ID is a `user`
   * everywhere in this API (`shopUser`, an order's `user`); an address is a `wallet` (the transaction's
   * `from`/`to` and `fromId`/`toId` keep the service's own names: addresses, and user IDs).
   */
  shopUser: string;
  /** The shop's agent account: the widget link's `via`, whose webhook the operator set up. */
  agent: string;
  /** The agent's fee in whole tokens, added to each link (`fee`); default none. */
  fee?: string;
  /** The denomination that counts as money; default `nanokudos`. Another only for a test chain. */
  denom?: string;
  /**
   * Called once an order is paid: at least its price reached the shop's wallets, and the
   * transaction names this order. Throwing keeps the payment for `redrive()` and calls it again
   * then; it is not called again once it returned (unless the process died in between).
   */
  onPaid: (paid: KudosPaidOrder) => void | Promise<void>;
  /**
   * Called for a payment that reached the shop and credits no order (see {@link KudosPaymentProblem}):
   * refund it or look at it. Listed by `unprocessed()` until `acknowledge(txHash)`.
   */
  onException?: (exception: KudosPaymentException) => void | Promise<void>;
  /** Told of every refused or failed notification, redrive or reconcile (never given secrets). */
  onError?: KudosReceiverOptions['onError'];
  /** The dedupe store of the notifications (as `kudosWebhook()`); default memory. */
  store?: KudosDedupeStore;
  /** Where orders and payment decisions are kept; default a `MemoryOrderStore`. */
  orders?: KudosOrderStore;
  /** How long an order can be paid, in milliseconds; default 24 hours. */
  orderTtlMs?: number;
  /** How long a processed notification (and a decided payment) is remembered; default 7 days. */
  dedupeTtlMs?: number;
  /**
   * How long an exception waits for `acknowledge()` after it was decided, in milliseconds; default
   * 30 days. Until then it is listed by `exceptions()` and counted by `status()` (each one says when
   * it goes: `keptUntil`); past it the record expires (the payment stays on the chain, where a
   * `reconcileChain()` whose window reaches it decides and tells it again). `null` keeps every exception until
   * acknowledged: the store then grows with every stranger's payment.
   */
  exceptionTtlMs?: number | null;
  /**
   * Whole tokens, as `createOrder()`'s `amount` (`"0.5"`): a payment below it that credits no order
   * (whatever it names: no order, or a copy of a paid order's memo, which the chain makes public;
   * anyone can pay your wallet a nanokudos) is decided and kept, but not listed by `unprocessed()`,
   * counted by `status()` or told to `onException`; money that went elsewhere (`not_to_wallet`) is
   * always told. Default none: every exception is listed.
   */
  minExceptionAmount?: string;
  /** Processing lease of a notification, as `kudosWebhook()`; default 60 s. */
  leaseMs?: number;
  /** Longest wait for the decision and `onPaid` before answering 503, as `kudosWebhook()`; default 25 s. */
  handlerTimeoutMs?: number;
  /** Longest time reading a notification's body, as `kudosWebhook()`; default 10 s. */
  bodyTimeoutMs?: number;
  /** Largest notification body in bytes, as `kudosWebhook()`; default 64 kB. */
  maxBodyBytes?: number;
  /** Time limit of each request to the service and the chain, in milliseconds; default 10000. */
  timeoutMs?: number;
  /**
   * Most lookups the return page (`check()`) has in flight at once, each for a hash no path brought
   * yet; past it a visitor is answered `pending` at once (no new socket). One lookup per hash however
   * many visitors ask. Default 32.
   */
  maxCheckLookups?: number;
  /**
   * How long `check()` remembers a hash the service does not know (or one that pays the shop
   * nothing), answering `pending` without a new lookup, in milliseconds. Default 10 s.
   */
  unknownHashCacheMs?: number;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

/** A new order of {@link KudosPayments.createOrder}. */
export interface KudosOrderInput {
  /** The price in whole tokens as a decimal string (`"2"`, `"0.5"`), as the widget takes it. */
  amount: string;
  /** The signed-in Kudos user the order is for: then only that user's payment pays it. */
  user?: string;
  /**
   * Where the widget sends the payer back, with `tx_hash` and `state` (it must be on the agent's
   * payment redirect whitelist); with `popup`, only its origin is used, as the message's target.
   */
  redirectURI?: string;
  /** Pay in a popup (`opener=1`): the widget posts its result to the opener instead of redirecting. */
  popup?: boolean;
  /** Wait for the chain before coming back (`blocking`); default true when there is a `redirectURI`. */
  blocking?: boolean;
  /** Words in the memo before the order's reference (public, on the chain; any order reference in them is taken out, so the memo names this order alone); default `order`. */
  memo?: string;
  /** How long this order can be paid, in milliseconds; default the `orderTtlMs` option. */
  expiresInMs?: number;
  /** Your own data for the order (its ID in your database): strings, given back with it. */
  data?: Record<string, string>;
}

/** An order made, with the widget link that pays it. */
export interface KudosOrderLink {
  order: KudosOrder;
  /** The widget link: send the payer there (a link, a redirect, or a popup). */
  url: string;
}

/** What `onPaid` is given. */
export interface KudosPaidOrder {
  order: KudosOrder;
  txHash: string;
  /** What the shop's wallets got, in nanokudos (at least the order's `units`). */
  received: bigint;
  payer: string | null;
  /** The path that brought the payment. */
  source: KudosNotificationSource;
}

/** A payment that reached the shop and credits no order. */
export interface KudosPaymentException {
  reason: KudosPaymentProblem;
  txHash: string;
  /** The order the transaction names, when it names one. */
  reference: string | null;
  received: bigint;
  payer: string | null;
  source: KudosNotificationSource;
  decidedAt: number;
  /** `not_to_wallet`: the addresses the chain shows the payment reached instead of `wallet`. */
  paidTo?: string[];
  /** When the record of this exception expires unless acknowledged (epoch ms); null: never (`exceptionTtlMs: null`). */
  keptUntil: number | null;
}

/**
 * What a return page answers (`check()`): `paid` (this transaction paid this order), `pending` (not
 * confirmed yet: the service or the chain does not show it, try again shortly), `not_this_order`
 * (it pays another order, or it is an exception of this one: `reason` says which), `unknown_order`.
 */
export interface KudosPaymentCheck {
  status: 'paid' | 'pending' | 'not_this_order' | 'unknown_order';
  reason?: KudosPaymentProblem | 'another_order';
  /**
   * The order, only when `check()` was given `user` (the signed-in payer it was made for): the
   * reference is public once the chain records the memo, so without `user` the answer holds no order.
   */
  order?: KudosOrder;
}

/** `reconcileChain()` of the payments API: the chain, the shop's wallet and the denomination are the options'. */
export interface KudosPaymentsReconcileChain {
  /**
   * Epoch milliseconds: transfers in blocks from this time on. Default: `dedupeTtlMs` back (what is
   * older may have been decided and forgotten: never reach further back).
   */
  since?: number;
}

/** The payments API: orders, their links, the webhook that credits them, the return page's answer. */
export interface KudosPayments {
  /** Makes an order and its widget link (recipient, amount, agent, fee, the reference as state and in the memo). */
  createOrder(input: KudosOrderInput): Promise<KudosOrderLink>;
  /** The order, or undefined (never made, or forgotten). */
  order(reference: string): Promise<KudosOrder | undefined>;
  /** The webhook receiver: `app.post('/webhooks/kudos', payments.webhook)`. */
  readonly webhook: KudosWebhookHandler;
  /** The same receiver as a Fetch handler (`Request` in, `Response` out): `export const POST = payments.fetch`. */
  readonly fetch: (request: Request) => Promise<Response>;
  /**
   * The return page's answer for an order and the hash the widget gave back. Never credits the
   * transaction to the order named here: a transaction pays the order it names itself. Looks the
   * transaction up on the chain when nothing brought it yet, so a late notification costs nothing.
   * With `user`, an order made for another user is `unknown_order`.
   */
  check(args: { reference: string; txHash: string; user?: string }): Promise<KudosPaymentCheck>;
  /**
   * Notifications not processed yet, oldest first: the receiver's list, as `kudosWebhook().unprocessed()`
   * (what `status().unprocessed` and the gauge `kudos.payments.unprocessed` count).
   */
  unprocessed(): Promise<KudosUnprocessedNotification[]>;
  /**
   * Payments that credit no order and are not acknowledged, oldest first: refund or look at each, then
   * `acknowledge()` it (what `status().exceptions` and the gauge `kudos.payments.exceptions` count).
   */
  exceptions(): Promise<KudosPaymentException[]>;
  /**
   * Marks an exception seen (refunded, or looked at): no longer listed. True only when this call
   * acknowledged it: false when there is none, or it was acknowledged already.
   */
  acknowledge(txHash: string): Promise<boolean>;
  /** Runs the kept notifications again (on a schedule): see `kudosWebhook().redrive()`. */
  redrive(): Promise<KudosRedriveResult>;
  /**
   * Health, for a `/healthz` route: as `kudosWebhook().status()`, with the exceptions not acknowledged
   * counted apart (`exceptions`, `oldestExceptionMs`: a stranger's payment cannot flip the health
   * rule), and the store must answer for the orders as well.
   */
  status(): Promise<KudosReceiverStatus>;
  /**
   * The way back that needs only the chain: reads the chain's transfers to `wallet` (both spellings)
   * since a time (`restURL`, or `{baseURL}/cosmos/lcd`) and decides each as a notification would: the
   * memo names the order, the chain shows what reached the shop, under the same key, so a second run
   * or a late notification credits nothing twice. Finds what no notification brought, a payment with
   * an agent fee too. Run it on a schedule (every minute).
   */
  reconcileChain(args?: KudosPaymentsReconcileChain): Promise<KudosReconcileResult>;
}
