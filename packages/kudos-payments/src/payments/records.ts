import { isRecord } from 'kudos-core';
import type { KudosNotificationSource } from '../core/types.js';

/**
 * What `kudosPayments()` keeps of an order and of a payment, and how a record is written to and
 * read back from a `KudosOrderStore` (JSON, amounts as decimal strings). The one home of the format.
 */

/**
 * Where an order is: `open` (waiting for its payment), `paid` (a payment was credited to it; the
 * app's `onPaid` has not returned yet), `fulfilled` (`onPaid` returned). Only ever forward.
 */
export type KudosOrderStatus = 'open' | 'paid' | 'fulfilled';

const ORDER_STATUSES: readonly KudosOrderStatus[] = ['open', 'paid', 'fulfilled'];

/** The payment credited to an order. */
export interface KudosOrderPayment {
  txHash: string;
  /** What the shop's wallets got, in nanokudos (at least the order's `units`). */
  received: bigint;
  /** The payer's Kudos user ID as the service recorded it; null for a wallet without an account. */
  payer: string | null;
  /** When it was credited, epoch milliseconds. */
  paidAt: number;
}

/** An order of `kudosPayments()`. */
export interface KudosOrder {
  /** Unguessable; the widget link's `state`, and written in its memo. */
  reference: string;
  /** The price in whole tokens, as the widget link gives it (`"2"`, `"0.5"`). */
  amount: string;
  /** The same price in nanokudos (10^9 to a token), exact. */
  units: bigint;
  /** The Kudos user the order was made for: only that user's payment credits it. Null: anyone's. */
  user: string | null;
  status: KudosOrderStatus;
  createdAt: number;
  /** A payment that arrives later is not credited (it is an `order_expired` exception). */
  expiresAt: number;
  /** What the app attached to the order (its own order ID, say): strings only. */
  data: Record<string, string>;
  /** Set once paid. */
  payment: KudosOrderPayment | null;
}

/**
 * Why a payment that reached the shop was not credited: each is an exception the app is told of
 * (`onException`) and that `unprocessed()` lists until `acknowledge()`:
 * `underpaid` (less than the order's price), `already_paid` (the order was paid by another
 * transaction), `unknown_order` (no such order, or forgotten), `order_expired`, `wrong_payer` (the
 * order was made for another Kudos user), `order_conflict` (the memo and the state name different
 * orders, or the memo several), `no_order` (the transaction names no order), `not_to_wallet` (an
 * authenticated notification of a payment to the shop's Kudos user that the chain shows reaching none
 * of the shop's `wallet` accounts: money that went elsewhere, `paidTo` says where).
 */
export type KudosPaymentProblem =
  | 'underpaid'
  | 'already_paid'
  | 'unknown_order'
  | 'order_expired'
  | 'wrong_payer'
  | 'order_conflict'
  | 'no_order'
  | 'not_to_wallet';

/** What became of a payment to the shop: credited to the order it names, or an exception. */
export type KudosPaymentOutcome = 'credited' | KudosPaymentProblem;

const OUTCOMES: readonly KudosPaymentOutcome[] = [
  'credited',
  'underpaid',
  'already_paid',
  'unknown_order',
  'order_expired',
  'wrong_payer',
  'order_conflict',
  'no_order',
  'not_to_wallet',
];

/** The decision on one transaction: made once, whichever path brought it first, then kept. */
export interface KudosPaymentRecord {
  txHash: string;
  outcome: KudosPaymentOutcome;
  /** The order the transaction names (credited to it, or not), when it names one. */
  reference: string | null;
  /** What the shop's wallets got, in nanokudos. */
  received: bigint;
  payer: string | null;
  /** The path that brought it first. */
  source: KudosNotificationSource;
  decidedAt: number;
  /** The app's `onPaid` or `onException` returned for it. */
  told: boolean;
  /** An exception the app acknowledged (`acknowledge(txHash)`): no longer listed. */
  acknowledged: boolean;
  /** `not_to_wallet`: the addresses the chain shows the payment reached instead of the shop's. */
  paidTo?: string[];
}

const AMOUNT = /^[0-9]{1,78}$/;
/** A guard for one of `list`'s words. */
const oneOf =
  <T extends string>(list: readonly T[]) =>
  (value: unknown): value is T =>
    typeof value === 'string' && (list as readonly string[]).includes(value);
const isOrderStatus = oneOf(ORDER_STATUSES);
const isOutcome = oneOf(OUTCOMES);
const isText = (v: unknown): v is string => typeof v === 'string';
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isAmount = (v: unknown): v is string => typeof v === 'string' && AMOUNT.test(v);

/** The JSON object in `text`, or undefined. */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An order's stored text. `retoldAt` (the store's alone, never part of a {@link KudosOrder}): when a
 * `redrive()` claimed this paid order to tell the app again, its `fulfilled` mark never having landed.
 */
export function writeOrder(order: KudosOrder, retoldAt?: number): string {
  const payment = order.payment && { ...order.payment, received: order.payment.received.toString() };
  return JSON.stringify({ ...order, units: order.units.toString(), payment, retoldAt });
}

/** The `retoldAt` of an order's stored text (see {@link writeOrder}), or undefined. */
export function readRetoldAt(text: string): number | undefined {
  const retoldAt = parseObject(text)?.retoldAt;
  return isTime(retoldAt) ? retoldAt : undefined;
}

function readOrderPayment(value: unknown): KudosOrderPayment | null | undefined {
  if (value === null) return null;
  if (!isRecord(value)) return undefined;
  const { txHash, received, payer, paidAt } = value;
  if (!isText(txHash) || !isAmount(received) || !isTextOrNull(payer) || !isTime(paidAt)) return undefined;
  return { txHash, received: BigInt(received), payer, paidAt };
}

/** An order's `data`: an object of strings. */
export function isOrderData(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every(isText);
}

/** An order record read back; undefined when it is not one (written by something else). */
export function readOrder(text: string): KudosOrder | undefined {
  const value = parseObject(text);
  if (!value) return undefined;
  const { reference, amount, units, user, status, createdAt, expiresAt, data } = value;
  const payment = readOrderPayment(value.payment);
  if (
    !isText(reference) ||
    !isText(amount) ||
    !isAmount(units) ||
    !isTextOrNull(user) ||
    !isOrderStatus(status) ||
    !isTime(createdAt) ||
    !isTime(expiresAt) ||
    !isOrderData(data) ||
    payment === undefined
  ) {
    return undefined;
  }
  return {
    reference,
    amount,
    units: BigInt(units),
    user,
    status,
    createdAt,
    expiresAt,
    data: { ...data },
    payment,
  };
}

export function writePayment(record: KudosPaymentRecord): string {
  return JSON.stringify({ ...record, received: record.received.toString() });
}

/** A payment record read back; undefined when it is not one. */
export function readPayment(text: string): KudosPaymentRecord | undefined {
  const value = parseObject(text);
  if (!value) return undefined;
  const { txHash, outcome, reference, received, payer, source, decidedAt, told, acknowledged, paidTo } =
    value;
  const addresses = Array.isArray(paidTo) && paidTo.every(isText) ? paidTo : undefined;
  if (
    (paidTo !== undefined && addresses === undefined) ||
    !isText(txHash) ||
    !isOutcome(outcome) ||
    !isTextOrNull(reference) ||
    !isAmount(received) ||
    !isTextOrNull(payer) ||
    (source !== 'webhook' && source !== 'reconcile') ||
    !isTime(decidedAt) ||
    typeof told !== 'boolean' ||
    typeof acknowledged !== 'boolean'
  ) {
    return undefined;
  }
  return {
    txHash,
    outcome,
    reference,
    received: BigInt(received),
    payer,
    source,
    decidedAt,
    told,
    acknowledged,
    ...(addresses === undefined ? {} : { paidTo: [...addresses] }),
  };
}
