import { fetchHandler } from '../adapters/fetch.js';
import { nodeHandler } from '../adapters/node.js';
import { createReceiver } from '../receiver.js';
import type { KudosPayments, KudosPaymentsOptions } from './api.js';
import { returnPageCheck } from './check.js';
import { concernsShop } from './concerns.js';
import { DecisionWaits } from './decision-waits.js';
import { Ledger } from './ledger.js';
import { MemoryOrderStore } from './memory-order-store.js';
import { orderMaker } from './order-link.js';
import { isReference, referenceInMemo } from './reference.js';
import { ReturnPageLookups } from './return-page.js';
import { paymentsSettings } from './settings.js';
import { PaymentSettler } from './settle.js';
import { PaymentsUpkeep } from './upkeep.js';

export type {
  KudosOrderInput,
  KudosOrderLink,
  KudosPaidOrder,
  KudosPaymentCheck,
  KudosPaymentException,
  KudosPayments,
  KudosPaymentsOptions,
  KudosPaymentsReconcileChain,
} from './api.js';

/** Whether a transaction is decided alike whoever paid it: its memo names no one order, or one made for no user. */
async function decidedAlike(ledger: Ledger, record: Record<string, unknown>): Promise<boolean> {
  const named = referenceInMemo(typeof record.remarks === 'string' ? record.remarks : null);
  if (named === 'none' || named === 'several') return true;
  const order = await ledger.order(named);
  return order === undefined || order.value.user == null;
}

/**
 * Orders paid through the Kudos widget, credited by every path the same way: a payment pays an
 * order only when the chain shows at least its price reaching the shop's own `wallet`, in
 * `nanokudos`, and the transaction names that order (its memo, which the chain records; the state of
 * an authenticated notification, which must agree), and, for an order made for a user, that user
 * paid it. Built on the receiver (`kudosReceiver()`), with the Node and Fetch adapters around it
 * (`webhook`, `fetch`): its dedupe store makes each transaction decided once, and its `redrive()`
 * and `reconcileChain()` bring what failed or never arrived.
 *
 * @see docs/payments.md
 */
export function kudosPayments(options: KudosPaymentsOptions): KudosPayments {
  const settings = paymentsSettings(options);
  const { now } = settings;
  const ledger = new Ledger(settings.orders ?? new MemoryOrderStore({ now }), settings, now);
  // The chain as the return page and reconcileChain() read it: a payer the service cannot name now
  // matters only for an order made for a user.
  const chain = {
    ...settings.chain,
    payerOptional: (record: Record<string, unknown>) => decidedAlike(ledger, record),
  };
  // What the app is told, as checked (onPaid, onException, onError).
  const told = {
    onPaid: options.onPaid,
    onException: settings.onException,
    onError: settings.receiverSettings.onError,
  };
  // Return pages wait for a transaction this process is deciding; the settler tells them.
  const waits = new DecisionWaits();
  // Where a notification is credited: the settler's handler, handed to the receiver by name
  // (settle.ts: PaymentSettler.settle, then Ledger.decide() in ledger.ts).
  const settler = new PaymentSettler(settings, ledger, told, waits);
  // The receiver's core, with both adapters around it, as kudosWebhook() and kudosWebhookFetch() have.
  const receiver = createReceiver({
    ...settings.receiverSettings,
    confirm: settings.confirm,
    onNotification: settler.settle,
  });
  // A hash of someone else's payment is looked at no further than its record: no store is touched.
  const concerns = concernsShop(settings.wallets, [settings.shopUser, settings.agent]);
  // The return page looks a hash up on the chain alone (restURL, or {baseURL}/cosmos/lcd), as the
  // notification's confirmation does: no record of the service's is needed.
  const lookups = new ReturnPageLookups(
    (hash) => receiver.reconcileChainHash(hash, chain, concerns),
    settings.maxCheckLookups,
    settings.unknownHashCacheMs,
    now,
  );
  const upkeep = new PaymentsUpkeep(settings, ledger, receiver, options.onPaid);
  return {
    createOrder: orderMaker(settings, ledger),
    order: async (reference) => {
      if (!isReference(reference)) return undefined;
      await ledger.flushFulfilled(); // what this process told the app, read back as fulfilled
      return (await ledger.order(reference))?.value;
    },
    webhook: nodeHandler(receiver),
    fetch: fetchHandler(receiver),
    check: returnPageCheck(ledger, lookups, waits),
    unprocessed: () => receiver.unprocessed(),
    exceptions: () => upkeep.exceptions(),
    acknowledge: (txHash) => upkeep.acknowledge(txHash),
    redrive: () => upkeep.redrive(),
    reconcileChain: (args) => receiver.reconcileChainPlan(chain, args?.since),
    status: () => upkeep.status(),
  };
}
