import type { KudosOrder, KudosPaymentOutcome, KudosPaymentProblem } from './records.js';
import { isReference, referenceInMemo } from './reference.js';

/** What a payment to the shop says, as far as it can be trusted; the decision is made of this alone. */
export interface PaymentFacts {
  txHash: string;
  /** What the shop's wallets got on the chain, in nanokudos (above 0: it was paid). */
  received: bigint;
  /** The memo as the chain records it (or as the service's own record gives it). */
  memo: string | null;
  /** The widget's `state`, only from a notification whose secret was checked; else undefined. */
  state: string | undefined;
  /** The payer's user ID, from the service's record or an authenticated notification. */
  payer: string | null;
}

/** The order a payment names, or why it names none. */
type Naming = { reference: string } | { problem: KudosPaymentProblem; reference: string | null };

/**
 * The order a payment names: the reference in its memo, which every path sees (the chain records
 * it), so that every path decides alike. The `state` of an authenticated notification is what the
 * payer's browser posted: only a cross-check, which must agree. A memo with no reference names no
 * order (`no_order`, whatever a state says: the return page and `reconcileChain()` see no state); a memo
 * with several references, or a state that contradicts the memo, is an edited link:
 * `order_conflict`, credited to neither.
 */
export function namedOrder(facts: PaymentFacts): Naming {
  const inMemo = referenceInMemo(facts.memo);
  if (inMemo === 'several') return { problem: 'order_conflict', reference: null };
  if (inMemo === 'none') return { problem: 'no_order', reference: null };
  const state = isReference(facts.state) ? facts.state : undefined;
  if (state !== undefined && state !== inMemo) return { problem: 'order_conflict', reference: inMemo };
  return { reference: inMemo };
}

/**
 * Whether a payment that names `order` pays it: the order is open (or was paid by this very
 * transaction: a replay), was not expired when the payment was made (`paidAt`: the transaction's
 * block time, however late a path brings it), made for this payer (when made for a user), and the
 * shop got at least its price. Pure: every path (notification, redelivery, redrive, reconcile,
 * return page) reaches the same answer for the same facts.
 */
export function judge(
  order: KudosOrder | undefined,
  facts: PaymentFacts,
  paidAt: number,
): KudosPaymentOutcome {
  if (!order) return 'unknown_order';
  if (order.status !== 'open') return order.payment?.txHash === facts.txHash ? 'credited' : 'already_paid';
  if (paidAt > order.expiresAt) return 'order_expired';
  if (order.user !== null && facts.payer !== order.user) return 'wrong_payer';
  if (facts.received < order.units) return 'underpaid';
  return 'credited';
}
