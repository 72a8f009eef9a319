import { isRecord } from '../../base/guards.js';
import { checkPositive } from '../../base/numbers.js';
import { renamedOption } from '../../base/renamed.js';
import { hasCredentials, withoutTrailingSlashes } from '../../base/url-path.js';
import { KUDOS_PAGES } from '../../protocol/endpoints.js';
import { DEFAULT_TIMEOUT_MS } from '../../protocol/limits.js';
import { TOKEN_AMOUNT, tokensToUnits } from '../../protocol/widget.js';
import type { WebhookRequest } from '../body.js';
import { checkReceivers, cosmosConfirmer } from '../confirm.js';
import type { KudosDedupeStore, KudosUnprocessedNotification } from '../dedupe.js';
import { KudosWebhookError } from '../errors.js';
import { kudosWebhookFetch } from '../fetch.js';
import { type KudosWebhookHandler, kudosWebhook } from '../middleware.js';
import { DEFAULT_HANDLER_TIMEOUT_MS, DEFAULT_LEASE_MS, type KudosWebhookOptions } from '../options.js';
import { parseKudosNotification } from '../parse.js';
import {
  fetchTransactionRecord,
  type KudosReconcileHistory,
  type KudosReconcileResult,
  type KudosReconcileTransaction,
  type KudosReconcileWithClient,
} from '../reconcile.js';
import type { KudosRedriveResult } from '../recovery.js';
import { combinedStatus, type KudosWebhookStatus, readStatus } from '../status.js';
import type { KudosNotification, KudosNotificationSource } from '../types.js';
import { judge, namedOrder, type PaymentFacts } from './decide.js';
import { Ledger, MAX_TRIES, storeError, type Versioned } from './ledger.js';
import { MemoryOrderStore } from './memory-order-store.js';
import type { KudosOrderStore } from './order-store.js';
import {
  isOrderData,
  type KudosOrder,
  type KudosPaymentProblem,
  type KudosPaymentRecord,
} from './records.js';
import { isReference, memoFor, newReference } from './reference.js';
import { ReturnPageLookups } from './return-page.js';

/** Default time an order can be paid: 24 hours. */
const DEFAULT_ORDER_TTL_MS = 24 * 3600 * 1000;
/** How long decided payments and expired orders are remembered: the dedupe TTL's default, 7 days. */
const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** How long an exception waits for `acknowledge()`: 30 days, a month's reconciliation of the shop's books. */
const DEFAULT_EXCEPTION_TTL_MS = 30 * 24 * 3600 * 1000;
/** Most exceptions one `unprocessed()` lists. */
const MAX_LISTED = 100_000;
const HASH = /^[0-9A-Fa-f]{64}$/;
/** How long `check()` waits for a delivery that holds the transaction to decide it. */
const CHECK_WAIT_MS = 5000;
/** Default most lookups the return page (`check()`) makes at once. */
const DEFAULT_MAX_CHECK_LOOKUPS = 32;
/** How long the return page remembers a hash the service does not know, or that pays the shop nothing. */
const DEFAULT_UNKNOWN_HASH_MS = 10_000;

/** Options of {@link kudosPayments}. */
export interface KudosPaymentsOptions {
  /** The webhook secret, as for `kudosWebhook()`. With `false`, a notification's metadata is not trusted. */
  secret: string | readonly string[] | false;
  /** `{auth_url}`: the widget links are made under it. */
  authURL: string;
  /** `{base_url}` of the Kudos API: transaction records, and the chain under `{baseURL}/cosmos/lcd`. */
  baseURL: string;
  /** The chain's REST (LCD) interface, when it is not under `baseURL`. */
  restURL?: string;
  /**
   * The shop's own wallet address(es), in either spelling (`kudos1…` or the legacy `cosmos1…`: the
   * same account): an order is paid only by what the chain shows reaching them. Checked when the
   * payments API is made (a mistyped address is a `TypeError`). Never taken from a notification.
   */
  receiver: string | readonly string[];
  /** The shop's Kudos user ID: the widget link's `to`, whose wallet is `receiver`. */
  to: string;
  /** The shop's agent account: the widget link's `via`, whose webhook the operator set up. */
  agent: string;
  /** The agent's fee in whole tokens, added to each link (`fee`); default none. */
  fee?: string;
  /** The denomination that counts as money; default `nanokudos`. Another only for a test chain. */
  denom?: string;
  /**
   * Called once an order is paid: at least its price reached the shop's receivers, and the
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
  onError?: KudosWebhookOptions['onError'];
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
   * 30 days. Until then it is listed by `unprocessed()` and counted by `status()` (each one says when
   * it goes: `keptUntil`); past it the record expires (the payment stays on the chain, where a
   * `reconcile()` of the shop's history decides and tells it again). `null` keeps every exception until
   * acknowledged: the store then grows with every stranger's payment.
   */
  exceptionTtlMs?: number | null;
  /** Processing lease of a notification, as `kudosWebhook()`; default 60 s. */
  leaseMs?: number;
  /** Longest wait for the decision and `onPaid` before answering 503, as `kudosWebhook()`; default 25 s. */
  handlerTimeoutMs?: number;
  /** Longest time reading a notification's body, as `kudosWebhook()`; default 10 s. */
  bodyTimeoutMs?: number;
  /** Largest notification body in bytes, as `kudosWebhook()`; default 64 kB. */
  maxBodyBytes?: number;
  /** @deprecated The old name of `maxBodyBytes`, still read (with a warning) until the next minor version. */
  limit?: number;
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
  /** Words in the memo before the order's reference (public, on the chain); default `order`. */
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
  /** What the shop's receivers got, in nanokudos (at least the order's `units`). */
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
  /** `not_to_receiver`: the addresses the chain shows the payment reached instead of `receiver`. */
  paidTo?: string[];
  /** When the record of this exception expires unless acknowledged (epoch ms); null: never (`exceptionTtlMs: null`). */
  keptUntil: number | null;
}

/** One line of {@link KudosPayments.unprocessed}: a notification not processed yet, or an exception. */
export type KudosPaymentsUnprocessed =
  | ({ kind: 'notification' } & KudosUnprocessedNotification)
  | ({ kind: 'exception' } & KudosPaymentException);

/**
 * What a return page answers (`check()`): `paid` (this transaction paid this order), `pending` (not
 * confirmed yet: the service or the chain does not show it, try again shortly), `not_this_order`
 * (it pays another order, or it is an exception of this one: `reason` says which), `unknown_order`.
 */
export interface KudosPaymentCheck {
  status: 'paid' | 'pending' | 'not_this_order' | 'unknown_order';
  reason?: KudosPaymentProblem | 'another_order';
  order?: KudosOrder;
}

/** `reconcile()` of the payments API: the `baseURL` is the option's. */
export type KudosPaymentsReconcile =
  | Omit<KudosReconcileTransaction, 'baseURL'>
  | Omit<KudosReconcileHistory, 'baseURL'>
  | KudosReconcileWithClient;

/** `maxBodyBytes` (or its old name `limit`, warned of) as the receiver takes it. */
function maxBodyBytes(options: KudosPaymentsOptions): { maxBodyBytes?: number } {
  const { value } = renamedOption(options, 'limit', 'maxBodyBytes', 'kudosPayments');
  return value === undefined ? {} : { maxBodyBytes: value as number };
}

/** The payments API: orders, their links, the webhook that credits them, the return page's answer. */
export interface KudosPayments {
  /** Makes an order and its widget link (receiver, amount, agent, fee, the reference as state and in the memo). */
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
   * transaction up (`reconcile`) when nothing brought it yet, so a late notification costs nothing.
   * With `user`, an order made for another user is `unknown_order`.
   */
  check(args: { reference: string; txHash: string; user?: string }): Promise<KudosPaymentCheck>;
  /** Notifications not processed yet, and exceptions not acknowledged, oldest first. */
  unprocessed(): Promise<KudosPaymentsUnprocessed[]>;
  /**
   * Marks an exception seen (refunded, or looked at): no longer listed. True only when this call
   * acknowledged it: false when there is none, or it was acknowledged already.
   */
  acknowledge(txHash: string): Promise<boolean>;
  /** Runs the kept notifications again (on a schedule): see `kudosWebhook().redrive()`. */
  redrive(): Promise<KudosRedriveResult>;
  /**
   * Health, for a `/healthz` route: as `kudosWebhook().status()`, where `unprocessed` and its oldest
   * count the exceptions not acknowledged too, and the store must answer for the orders as well.
   */
  status(): Promise<KudosWebhookStatus>;
  /** Fetches what never arrived from the service (by hash, or a user's history) and decides it. */
  reconcile(args: KudosPaymentsReconcile): Promise<KudosReconcileResult>;
}

function absoluteURL(value: unknown, name: string): string {
  if (typeof value !== 'string' || !URL.canParse(value) || hasCredentials(value)) {
    throw new TypeError(`kudosPayments option "${name}" must be an absolute URL without credentials`);
  }
  return withoutTrailingSlashes(value);
}

function nonEmpty(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new TypeError(`${what} must be a non-empty string`);
  return value;
}

function tokens(value: unknown, what: string, zero = false): string {
  if (typeof value !== 'string' || !TOKEN_AMOUNT.test(value) || (!zero && tokensToUnits(value) === 0n)) {
    throw new TypeError(`${what} must be whole tokens as a decimal string above 0, like "2" or "0.5"`);
  }
  return value;
}

function httpURL(value: unknown, what: string): string {
  const ok = typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  if (!ok) throw new TypeError(`${what} must be an absolute http(s) URL`);
  return value;
}

/** What `onError` is told, once, of money that went elsewhere: the addresses it reached. */
function notToReceiver(record: KudosPaymentRecord): KudosWebhookError {
  return new KudosWebhookError('not_to_receiver', {
    message: `payment ${record.txHash} to your Kudos user reached none of "receiver" on the chain; it paid ${(record.paidTo ?? []).join(', ')} (is "receiver" your wallet?)`,
  });
}

/** A decision that credits no order, as the app is told of it. */
function exceptionOf(
  record: KudosPaymentRecord,
  reason: KudosPaymentProblem,
  exceptionTtlMs: number | null,
): KudosPaymentException {
  return {
    reason,
    txHash: record.txHash,
    reference: record.reference,
    received: record.received,
    payer: record.payer,
    source: record.source,
    decidedAt: record.decidedAt,
    ...(record.paidTo === undefined ? {} : { paidTo: [...record.paidTo] }),
    keptUntil: exceptionTtlMs === null ? null : record.decidedAt + exceptionTtlMs,
  };
}

/**
 * Orders paid through the Kudos widget, credited by every path the same way: a payment pays an
 * order only when the chain shows at least its price reaching the shop's own `receiver`, in
 * `nanokudos`, and the transaction names that order (its memo, which the chain records; the state of
 * an authenticated notification, which must agree), and, for an order made for a user, that user
 * paid it. Built on `kudosWebhook()`, whose dedupe store makes each transaction decided once, and
 * whose `redrive()` and `reconcile()` bring what failed or never arrived.
 *
 * @see docs/payments.md
 */
export function kudosPayments(options: KudosPaymentsOptions): KudosPayments {
  if (typeof options?.onPaid !== 'function')
    throw new TypeError('kudosPayments requires an "onPaid" function');
  const authURL = absoluteURL(options.authURL, 'authURL');
  const baseURL = absoluteURL(options.baseURL, 'baseURL');
  const to = nonEmpty(options.to, 'kudosPayments option "to" (the shop\'s Kudos user ID)');
  const agent = nonEmpty(options.agent, 'kudosPayments option "agent" (the agent\'s Kudos user ID)');
  checkReceivers(options.receiver, 'kudosPayments');
  const fee = options.fee === undefined ? undefined : tokens(options.fee, 'kudosPayments option "fee"', true);
  const orderTtlMs = checkPositive(
    options.orderTtlMs ?? DEFAULT_ORDER_TTL_MS,
    'kudosPayments option "orderTtlMs"',
  );
  const timeoutMs = checkPositive(
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    'kudosPayments option "timeoutMs"',
  );
  const retentionMs = checkPositive(
    options.dedupeTtlMs ?? DEFAULT_RETENTION_MS,
    'kudosPayments option "dedupeTtlMs"',
  );
  const exceptionTtlMs =
    options.exceptionTtlMs === null
      ? null
      : checkPositive(
          options.exceptionTtlMs ?? DEFAULT_EXCEPTION_TTL_MS,
          'kudosPayments option "exceptionTtlMs"',
        );
  const now = options.now ?? Date.now;
  const ledger = new Ledger(
    options.orders ?? new MemoryOrderStore({ now }),
    { retentionMs, exceptionTtlMs },
    now,
  );
  const authenticated = options.secret !== false;

  /**
   * What a payment says, as far as it can be trusted. The memo is the chain's. A notification whose
   * secret was not checked is only a hint: who paid and what the memo is come from the service's own
   * record, and its metadata (the state) is not read.
   */
  async function factsOf(n: KudosNotification): Promise<PaymentFacts> {
    let { fromId: payer, remarks } = n.tx;
    if (n.source === 'webhook' && !authenticated) {
      const record = await fetchTransactionRecord(baseURL, n.tx.txHash, timeoutMs).catch((cause: unknown) => {
        throw new KudosWebhookError('confirmation_unavailable', {
          message: 'the transaction record could not be read',
          cause,
        });
      });
      if (record === undefined) {
        throw new KudosWebhookError('confirmation_unavailable', {
          message: 'the service does not know this transaction yet',
        });
      }
      ({ fromId: payer, remarks } = parseKudosNotification({ tx: record }, 'reconcile').tx);
    }
    const state = n.source === 'webhook' && authenticated ? n.metadata.state : undefined;
    return { txHash: n.tx.txHash, received: n.received, memo: n.memo ?? remarks, state, payer };
  }

  /**
   * The decision on a transaction: the one made first, or made now from what it says, saved (with
   * the credit of its order, in one write) unless another writer came between: then made again.
   */
  async function decide(
    n: KudosNotification,
    paidTo: string[] | undefined,
  ): Promise<{ record: KudosPaymentRecord; order?: Versioned<KudosOrder> }> {
    const facts = await factsOf(n);
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const named = namedOrder(facts);
      const at = n.blockTime ?? now();
      // Money that went elsewhere pays no order: the order it names is only said with it.
      let order = 'problem' in named || paidTo ? undefined : await ledger.orderToDecide(named.reference);
      // An order as this process last wrote it decides a credit only (whose write checks its
      // version); any other outcome is judged from the store's, so that its reason is exact.
      if (order && !('problem' in named) && judge(order.value, facts, at) !== 'credited')
        order = await ledger.order(named.reference);
      const record: KudosPaymentRecord = {
        txHash: facts.txHash,
        outcome: paidTo
          ? 'not_to_receiver'
          : 'problem' in named
            ? named.problem
            : judge(order?.value, facts, at),
        reference: named.reference,
        received: facts.received,
        payer: facts.payer,
        source: n.source,
        decidedAt: now(),
        told: false,
        acknowledged: false,
        ...(paidTo ? { paidTo } : {}),
      };
      const saved = await ledger.decide(record, order);
      if (saved) return { record, ...saved };
      // Decided first (a replay: its decision stands), or the order changed since it was read.
      const first = await ledger.payment(facts.txHash);
      if (first) return { record: first.value };
    }
    throw storeError('the order kept changing under every try; retry later');
  }

  /**
   * The addresses a real payment to the shop's Kudos user reached instead of `receiver` (a shop
   * whose `receiver` is not its wallet), from an authenticated notification only: a forged body
   * under `secret: false` makes no exception. Undefined for anything else.
   */
  function misdirected(n: KudosNotification): string[] | undefined {
    if (n.paid || !n.paidTo || n.paidTo.length === 0) return undefined;
    if (n.source !== 'webhook' || !authenticated || !n.tx.toId.includes(to)) return undefined;
    return [...n.paidTo];
  }

  /** Credits what pays an order and tells the app; surfaces what does not. Idempotent: a replay changes nothing. */
  async function settle(n: KudosNotification, req: WebhookRequest | undefined): Promise<void> {
    try {
      await decideAndTell(n, req);
    } finally {
      lookups.decided(n.tx.txHash); // a return page waiting for this transaction reads the decision now
    }
  }

  async function decideAndTell(n: KudosNotification, req: WebhookRequest | undefined): Promise<void> {
    const paidTo = misdirected(n);
    // Nothing reached the shop: pending, failed, another denomination, or paid to someone else.
    if (!n.paid && !paidTo) return;
    const { record, order: credited } = await decide(n, paidTo);
    if (record.outcome === 'credited') {
      const order =
        credited ?? (record.reference === null ? undefined : await ledger.order(record.reference));
      // Told once: an order the app was told of (fulfilled) is not told again on a replay.
      if (order?.value.status !== 'paid' || order.value.payment?.txHash !== record.txHash) return;
      const { txHash, received, payer, source } = record;
      await options.onPaid({ order: order.value, txHash, received, payer, source });
      ledger.fulfil(order);
      return;
    }
    if (record.told) return;
    await options.onException?.(exceptionOf(record, record.outcome, exceptionTtlMs));
    if (record.outcome === 'not_to_receiver') options.onError?.(notToReceiver(record), req);
    await ledger.changePayment(record.txHash, (r) => (r.told ? undefined : { ...r, told: true }));
  }

  const lookups = new ReturnPageLookups(
    (hash) => webhook.reconcile({ baseURL, txHash: hash, timeoutMs }),
    checkPositive(
      options.maxCheckLookups ?? DEFAULT_MAX_CHECK_LOOKUPS,
      'kudosPayments option "maxCheckLookups"',
      {
        whole: true,
      },
    ),
    checkPositive(
      options.unknownHashCacheMs ?? DEFAULT_UNKNOWN_HASH_MS,
      'kudosPayments option "unknownHashCacheMs"',
      {
        zero: true,
      },
    ),
    now,
  );

  const webhook = kudosWebhook({
    secret: options.secret,
    confirm: cosmosConfirmer({
      ...(options.restURL === undefined ? { baseURL } : { restURL: options.restURL }),
      receiver: options.receiver,
      timeoutMs,
      ...(options.denom === undefined ? {} : { denom: options.denom }),
    }),
    onNotification: settle,
    ...(options.store ? { store: options.store } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    dedupeTtlMs: retentionMs,
    now,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.handlerTimeoutMs === undefined ? {} : { handlerTimeoutMs: options.handlerTimeoutMs }),
    ...(options.bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs: options.bodyTimeoutMs }),
    ...maxBodyBytes(options),
  });

  async function createOrder(input: KudosOrderInput): Promise<KudosOrderLink> {
    if (!isRecord(input))
      throw new TypeError('createOrder() takes an object: { amount, user?, redirectURI?, ... }');
    const amount = tokens(input.amount, 'createOrder() "amount"');
    const user = input.user === undefined ? null : nonEmpty(input.user, 'createOrder() "user"');
    const redirectURI =
      input.redirectURI === undefined ? undefined : httpURL(input.redirectURI, 'createOrder() "redirectURI"');
    if (input.popup && redirectURI === undefined) {
      throw new TypeError(
        'createOrder() "redirectURI" is required with "popup": its origin is where the widget posts the result',
      );
    }
    const expiresInMs = checkPositive(input.expiresInMs ?? orderTtlMs, 'createOrder() "expiresInMs"');
    const data: unknown = input.data ?? {};
    if (!isOrderData(data)) {
      throw new TypeError('createOrder() "data" must be an object of strings');
    }
    const createdAt = now();
    const order: KudosOrder = {
      reference: newReference(),
      amount,
      units: tokensToUnits(amount),
      user,
      status: 'open',
      createdAt,
      expiresAt: createdAt + expiresInMs,
      data: { ...data },
      payment: null,
    };
    await ledger.createOrder(order);
    const link = new URL(`${authURL}${KUDOS_PAGES.widget}`);
    const params: Record<string, string> = { to, amount, via: agent };
    if (fee !== undefined) params.fee = fee;
    params.remarks = memoFor(order.reference, input.memo);
    params.state = order.reference;
    if (redirectURI !== undefined) params.redirect_uri = redirectURI;
    if (input.blocking ?? redirectURI !== undefined) params.blocking = '1';
    if (input.popup) params.opener = '1';
    link.search = new URLSearchParams(params).toString();
    return { order, url: link.toString() };
  }

  async function check(args: {
    reference: string;
    txHash: string;
    user?: string;
  }): Promise<KudosPaymentCheck> {
    const { reference, txHash, user } = args ?? {};
    if (!isReference(reference)) return { status: 'unknown_order' };
    const before = await ledger.order(reference);
    const othersOrder = user !== undefined && before?.value.user != null && before.value.user !== user;
    if (!before || othersOrder) return { status: 'unknown_order' };
    if (typeof txHash !== 'string' || !HASH.test(txHash))
      return { status: 'not_this_order', order: before.value };
    const hash = txHash.toUpperCase();
    const answer = async (): Promise<KudosPaymentCheck | undefined> => {
      const found = await ledger.order(reference);
      if (!found) return { status: 'unknown_order' };
      const order = found.value;
      if (order.payment?.txHash === hash) return { status: 'paid', order };
      const decided = await ledger.payment(hash);
      if (decided) {
        const { outcome, reference: named } = decided.value;
        // This order's own exception (underpaid, paid after its expiry...), or another order's payment.
        const reason = named === reference && outcome !== 'credited' ? outcome : 'another_order';
        return { status: 'not_this_order', reason, order };
      }
      // Paid by another transaction already: this hash cannot pay it, and is not looked up for it.
      if (order.status !== 'open') return { status: 'not_this_order', reason: 'already_paid', order };
      return undefined;
    };
    const first = await answer();
    if (first) return first;
    // Nothing brought this transaction yet (a late notification): fetch it from the service and
    // decide it as any path would, once however many visitors ask, and within the lookup limit.
    // Waiting for a decision of this process starts before the lookup: one made meanwhile is not missed.
    const decision = lookups.waitForDecision(hash, CHECK_WAIT_MS);
    const looked = await lookups.run(hash);
    let known = looked === 'busy' || looked === 'unknown' ? undefined : await answer();
    if (!known && looked === 'held') {
      // A delivery of the same transaction holds it right now (the notification and the payer's
      // return arrive together): its decision is told here when it is made in this process; else
      // read once more after the wait (another instance's delivery).
      await decision.done;
      known = await answer();
    }
    decision.cancel();
    if (!known && looked === 'looked') lookups.nothingFor(hash); // pays the shop nothing (yet)
    return known ?? { status: 'pending', order: before.value };
  }

  /** The exceptions not acknowledged, each with when it was decided (a credited payment is never one). */
  async function exceptionsWaiting(): Promise<Array<KudosPaymentException & { at: number }>> {
    return (await ledger.exceptions(MAX_LISTED)).flatMap((e) =>
      e.outcome === 'credited' ? [] : [{ ...exceptionOf(e, e.outcome, exceptionTtlMs), at: e.decidedAt }],
    );
  }

  async function unprocessed(): Promise<KudosPaymentsUnprocessed[]> {
    const [notifications, exceptions] = await Promise.all([webhook.unprocessed(), exceptionsWaiting()]);
    return [
      ...notifications.map((n) => ({ kind: 'notification' as const, ...n, at: n.receivedAt })),
      ...exceptions.map((e) => ({ kind: 'exception' as const, ...e })),
    ]
      .sort((a, b) => a.at - b.at)
      .map(({ at: _at, ...line }) => line);
  }

  /** After this long a paid order not marked `fulfilled` is no delivery's any more: its handler ended. */
  const retellAfterMs =
    (options.leaseMs ?? DEFAULT_LEASE_MS) + (options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS);

  /**
   * Tells the app again of each order paid more than {@link retellAfterMs} ago whose `fulfilled` mark
   * never landed (the process died between `onPaid` and it, or the store refused it until then), one
   * instance per order (a claim); answers how many were told and how many failed again.
   */
  async function retell(): Promise<{ told: number; failed: number }> {
    const result = { told: 0, failed: 0 };
    for (const order of await ledger.unfulfilled(MAX_LISTED, now() - retellAfterMs)) {
      const claimed = await ledger.claimRetelling(order);
      const payment = claimed?.value.payment;
      if (!claimed || !payment) continue;
      const { txHash, received, payer } = payment;
      const source = (await ledger.payment(txHash))?.value.source ?? 'webhook'; // the path that brought it
      try {
        await options.onPaid({ order: claimed.value, txHash, received, payer, source });
        ledger.fulfil(claimed);
        result.told++;
      } catch {
        result.failed++; // still listed: the next redrive() tells it again
      }
    }
    await ledger.flushFulfilled();
    return result;
  }

  /** The kept notifications run again, then the paid orders never marked fulfilled told again. */
  async function redrive(): Promise<KudosRedriveResult> {
    const kept = await webhook.redrive();
    const { told, failed } = await retell();
    return {
      processed: kept.processed + told,
      failed: kept.failed + failed,
      remaining: kept.remaining + failed,
    };
  }

  async function acknowledge(txHash: string): Promise<boolean> {
    if (typeof txHash !== 'string' || !HASH.test(txHash)) return false;
    let acknowledged = false;
    await ledger.changePayment(txHash.toUpperCase(), (r) => {
      acknowledged = r.outcome !== 'credited' && !r.acknowledged;
      return acknowledged ? { ...r, acknowledged: true } : undefined;
    });
    return acknowledged;
  }

  return {
    createOrder,
    order: async (reference) => {
      if (!isReference(reference)) return undefined;
      await ledger.flushFulfilled(); // what this process told the app, read back as fulfilled
      return (await ledger.order(reference))?.value;
    },
    webhook,
    fetch: kudosWebhookFetch(webhook.receiver),
    check,
    unprocessed,
    acknowledge,
    redrive,
    reconcile: (args) => webhook.reconcile({ baseURL, timeoutMs, ...args }),
    // Each store read once: the receiver's status, and the exceptions beside it.
    status: async () =>
      combinedStatus(
        ...(await Promise.all([
          webhook.status(),
          readStatus(
            async () => {
              await ledger.health();
              return (await exceptionsWaiting()).map((e) => ({ since: e.at }));
            },
            null,
            now(),
          ),
        ])),
      ),
  };
}
