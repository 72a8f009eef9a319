// The return page's answer: whether the transaction the widget gave back paid this order.
import type { KudosPaymentCheck } from './api.js';
import type { DecisionWaits } from './decision-waits.js';
import type { Ledger } from './ledger.js';
import { isReference } from './reference.js';
import type { ReturnPageLookups } from './return-page.js';
import { HASH } from './settings.js';

/** How long `check()` waits for a delivery that holds the transaction to decide it. */
const CHECK_WAIT_MS = 5000;

/**
 * What is known of `hash` for the order `reference`, from the store alone: paid, this order's own
 * exception, another order's payment, already paid by another; undefined when nothing decided it.
 */
async function known(
  ledger: Ledger,
  reference: string,
  hash: string,
): Promise<KudosPaymentCheck | undefined> {
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
}

/**
 * The answer as a caller may see it: with `user` (the signed-in payer the order was made for), the
 * order too; without it only the status and the reason. The reference is public once the chain records
 * the memo: whoever holds it must not read the order's `data`, amount or payer.
 */
function shown(answer: KudosPaymentCheck, user: string | undefined): KudosPaymentCheck {
  if (user !== undefined || answer.order === undefined) return answer;
  return answer.reason === undefined
    ? { status: answer.status }
    : { status: answer.status, reason: answer.reason };
}

/** `check()` of the payments API (see `KudosPayments.check`). */
export function returnPageCheck(ledger: Ledger, lookups: ReturnPageLookups, waits: DecisionWaits) {
  const check = decide(ledger, lookups, waits);
  return async (args: { reference: string; txHash: string; user?: string }): Promise<KudosPaymentCheck> =>
    shown(await check(args), args?.user);
}

/** What a return page's transaction did to the order it names (the whole answer, order included). */
function decide(ledger: Ledger, lookups: ReturnPageLookups, waits: DecisionWaits) {
  return async (args: { reference: string; txHash: string; user?: string }): Promise<KudosPaymentCheck> => {
    const { reference, txHash, user } = args ?? {};
    if (!isReference(reference)) return { status: 'unknown_order' };
    const before = await ledger.order(reference);
    const othersOrder = user !== undefined && before?.value.user != null && before.value.user !== user;
    if (!before || othersOrder) return { status: 'unknown_order' };
    if (typeof txHash !== 'string' || !HASH.test(txHash))
      return { status: 'not_this_order', order: before.value };
    const hash = txHash.toUpperCase();
    const answer = () => known(ledger, reference, hash);
    const first = await answer();
    if (first) return first;
    // Nothing brought this transaction yet (a late notification): fetch it from the service and
    // decide it as any path would, once however many visitors ask, and within the lookup limit.
    // Waiting for a decision of this process starts before the lookup: one made meanwhile is not missed.
    const decision = waits.waitForDecision(hash, CHECK_WAIT_MS);
    const looked = await lookups.run(hash);
    let found = looked === 'busy' || looked === 'unknown' ? undefined : await answer();
    if (!found && looked === 'held') {
      // A delivery of the same transaction holds it right now (the notification and the payer's
      // return arrive together): its decision is told here when it is made in this process; else
      // read once more after the wait (another instance's delivery).
      await decision.done;
      found = await answer();
    }
    decision.cancel();
    if (!found && looked === 'looked') lookups.nothingFor(hash); // pays the shop nothing (yet)
    return found ?? { status: 'pending', order: before.value };
  };
}
