// What a notification does to the orders: the decision on its transaction (made once, whichever path
// brings it), the credit of the order it pays, and what the app is told of it.
import { storeUnavailable } from 'kudos-core';
import type { WebhookRequest } from '../core/body.js';
import { KudosNotificationError } from '../core/errors.js';
import { parseKudosNotification } from '../core/parse.js';
import type { KudosNotification } from '../core/types.js';
import { fetchTransactionRecord } from '../recovery/reconcile.js';
import type { KudosPaymentException, KudosPaymentsOptions } from './api.js';
import { judge, namedOrder, type PaymentFacts } from './decide.js';
import type { DecisionWaits } from './decision-waits.js';
import { type Ledger, MAX_TRIES, type Versioned } from './ledger.js';
import type { KudosOrder, KudosPaymentProblem, KudosPaymentRecord } from './records.js';
import type { PaymentsSettings } from './settings.js';

/** What the app is told: its callbacks of the payments API. */
type Told = Pick<KudosPaymentsOptions, 'onPaid' | 'onException' | 'onError'>;

/** What `onError` is told, once, of money that went elsewhere: the addresses it reached. */
function notToReceiver(record: KudosPaymentRecord): KudosNotificationError {
  return new KudosNotificationError('not_to_wallet', {
    message: `payment ${record.txHash} to your Kudos user reached none of "wallet" on the chain; it paid ${(record.paidTo ?? []).join(', ')} (is "wallet" your wallet address?)`,
  });
}

/** A decision that credits no order, as the app is told of it. */
export function exceptionOf(
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
 * Settles each notification the receiver hands it: credits what pays an order (`Ledger.decide()`,
 * ledger.ts) and tells the app, surfaces what does not. Idempotent: a replay changes nothing. The
 * return pages waiting for a transaction (`waits`) are told once it is settled.
 */
export class PaymentSettler {
  constructor(
    private readonly settings: PaymentsSettings,
    private readonly ledger: Ledger,
    private readonly told: Told,
    private readonly waits: Pick<DecisionWaits, 'decided'>,
  ) {}

  /**
   * The receiver's notification handler (its `onNotification`): a notification confirmed on the
   * chain, decided and credited. A property, so that it is handed to the receiver by its name.
   */
  readonly settle = async (n: KudosNotification, req: WebhookRequest | undefined): Promise<void> => {
    try {
      await this.decideAndTell(n, req);
    } finally {
      this.waits.decided(n.tx.txHash); // a return page waiting for this transaction reads the decision now
    }
  };

  private async decideAndTell(n: KudosNotification, req: WebhookRequest | undefined): Promise<void> {
    const paidTo = this.misdirected(n);
    // Nothing reached the shop: pending, failed, another denomination, or paid to someone else.
    if (!n.paid && !paidTo) return;
    const { record, order: credited } = await this.decide(n, paidTo);
    if (record.outcome === 'credited') {
      const order =
        credited ?? (record.reference === null ? undefined : await this.ledger.order(record.reference));
      // Told once: an order the app was told of (fulfilled) is not told again on a replay.
      if (order?.value.status !== 'paid' || order.value.payment?.txHash !== record.txHash) return;
      const { txHash, received, payer, source } = record;
      await this.told.onPaid({ order: order.value, txHash, received, payer, source });
      this.ledger.fulfil(order);
      return;
    }
    if (record.told || this.ledger.quiet(record)) return;
    await this.told.onException?.(exceptionOf(record, record.outcome, this.settings.exceptionTtlMs));
    if (record.outcome === 'not_to_wallet') this.told.onError?.(notToReceiver(record), req);
    await this.ledger.changePayment(record.txHash, (r) => (r.told ? undefined : { ...r, told: true }));
  }

  /**
   * What a payment says, as far as it can be trusted. The memo is the chain's. A notification whose
   * secret was not checked is only a hint: who paid and what the memo is come from the service's own
   * record, and its metadata (the state) is not read.
   */
  private async factsOf(n: KudosNotification): Promise<PaymentFacts> {
    const { authenticated, baseURL, timeoutMs } = this.settings;
    let { fromId: payer, remarks } = n.tx;
    if (n.source === 'webhook' && !authenticated) {
      const record = await fetchTransactionRecord(baseURL, n.tx.txHash, timeoutMs).catch((cause: unknown) => {
        throw new KudosNotificationError('confirmation_unavailable', {
          message: 'the transaction record could not be read',
          cause,
        });
      });
      if (record === undefined) {
        throw new KudosNotificationError('confirmation_unavailable', {
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
  private async decide(
    n: KudosNotification,
    paidTo: string[] | undefined,
  ): Promise<{ record: KudosPaymentRecord; order?: Versioned<KudosOrder> }> {
    const facts = await this.factsOf(n);
    const now = this.settings.now;
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const named = namedOrder(facts);
      const at = n.blockTime ?? now();
      // Money that went elsewhere pays no order: the order it names is only said with it.
      const order =
        'problem' in named || paidTo ? undefined : await this.orderFor(named.reference, facts, at);
      const record: KudosPaymentRecord = {
        txHash: facts.txHash,
        outcome: paidTo
          ? 'not_to_wallet'
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
      const saved = await this.ledger.decide(record, order);
      if (saved) return { record, ...saved };
      // Decided first (a replay: its decision stands), or the order changed since it was read.
      const first = await this.ledger.payment(facts.txHash);
      if (first) return { record: first.value };
    }
    throw storeUnavailable('the order kept changing under every try; retry later');
  }

  /**
   * The order a payment is judged against. One as this process last wrote it decides a credit only
   * (whose write checks its version); any other outcome is judged from the store's, so that its
   * reason is exact.
   */
  private async orderFor(
    reference: string,
    facts: PaymentFacts,
    at: number,
  ): Promise<Versioned<KudosOrder> | undefined> {
    const known = await this.ledger.orderToDecide(reference);
    if (known && judge(known.value, facts, at) !== 'credited') return this.ledger.order(reference);
    return known;
  }

  /**
   * The addresses a real payment to the shop's Kudos user reached instead of `wallet` (a shop
   * whose `wallet` option names another address), from an authenticated notification only: a forged body
   * under `secret: false` makes no exception. Undefined for anything else.
   */
  private misdirected(n: KudosNotification): string[] | undefined {
    if (n.paid || !n.paidTo || n.paidTo.length === 0) return undefined;
    if (n.source !== 'webhook' || !this.settings.authenticated || !n.tx.toId.includes(this.settings.shopUser))
      return undefined;
    return [...n.paidTo];
  }
}
