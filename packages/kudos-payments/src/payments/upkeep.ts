// What the payments API keeps beside the receiver's own recovery: the exceptions waiting for the
// app, the paid orders it may never have been told of, and the health of both.
import type { KudosRecovery } from '../receiver.js';
import type { KudosRedriveResult } from '../recovery/recovery.js';
import {
  type ExceptionFigures,
  type KudosReceiverStatus,
  storeErrorOf,
  withExceptions,
} from '../recovery/status.js';
import type { KudosPaymentException, KudosPaymentsOptions } from './api.js';
import type { Ledger } from './ledger.js';
import { HASH, MAX_LISTED, type PaymentsSettings } from './settings.js';
import { exceptionOf } from './settle.js';

/** `exceptions()`, `acknowledge()`, `redrive()` and `status()` of the payments API. */
export class PaymentsUpkeep {
  constructor(
    private readonly settings: PaymentsSettings,
    private readonly ledger: Ledger,
    private readonly receiver: KudosRecovery,
    private readonly onPaid: KudosPaymentsOptions['onPaid'],
  ) {}

  /** The exceptions not acknowledged, each with when it was decided (a credited payment is never one). */
  private async exceptionsWaiting(): Promise<Array<KudosPaymentException & { at: number }>> {
    const { exceptionTtlMs } = this.settings;
    return (await this.ledger.exceptions(MAX_LISTED)).flatMap((e) =>
      e.outcome === 'credited' ? [] : [{ ...exceptionOf(e, e.outcome, exceptionTtlMs), at: e.decidedAt }],
    );
  }

  /** The exceptions not acknowledged, oldest first. */
  async exceptions(): Promise<KudosPaymentException[]> {
    return (await this.exceptionsWaiting()).sort((a, b) => a.at - b.at).map(({ at: _at, ...line }) => line);
  }

  async acknowledge(txHash: string): Promise<boolean> {
    if (typeof txHash !== 'string' || !HASH.test(txHash)) return false;
    let acknowledged = false;
    await this.ledger.changePayment(txHash.toUpperCase(), (r) => {
      acknowledged = r.outcome !== 'credited' && !r.acknowledged;
      return acknowledged ? { ...r, acknowledged: true } : undefined;
    });
    return acknowledged;
  }

  /** The kept notifications run again, then the paid orders never marked fulfilled told again. */
  async redrive(): Promise<KudosRedriveResult> {
    const kept = await this.receiver.redrive();
    const { told, failed } = await this.retell();
    return {
      processed: kept.processed + told,
      failed: kept.failed + failed,
      remaining: kept.remaining + failed,
    };
  }

  /**
   * Tells the app again of each order paid more than `retellAfterMs` ago whose `fulfilled` mark
   * never landed (the process died between `onPaid` and it, or the store refused it until then), one
   * instance per order (a claim); answers how many were told and how many failed again.
   */
  private async retell(): Promise<{ told: number; failed: number }> {
    const result = { told: 0, failed: 0 };
    const { now, retellAfterMs } = this.settings;
    for (const order of await this.ledger.unfulfilled(MAX_LISTED, now() - retellAfterMs)) {
      const claimed = await this.ledger.claimRetelling(order);
      const payment = claimed?.value.payment;
      if (!claimed || !payment) continue;
      const { txHash, received, payer } = payment;
      const source = (await this.ledger.payment(txHash))?.value.source ?? 'webhook'; // the path that brought it
      try {
        await this.onPaid({ order: claimed.value, txHash, received, payer, source });
        this.ledger.fulfil(claimed);
        result.told++;
      } catch {
        result.failed++; // still listed: the next redrive() tells it again
      }
    }
    await this.ledger.flushFulfilled();
    return result;
  }

  /** Each store read once: the receiver's status, and the exceptions beside it (their own figures). */
  async status(): Promise<KudosReceiverStatus> {
    const [receiver, exceptions] = await Promise.all([this.receiver.status(), this.exceptionFigures()]);
    return withExceptions(receiver, exceptions, this.settings.now());
  }

  /** The exceptions' figures, or why the order store did not answer: a health answer never throws. */
  private async exceptionFigures(): Promise<ExceptionFigures> {
    try {
      await this.ledger.health();
      return await this.ledger.exceptionFigures(MAX_LISTED);
    } catch (error) {
      return { storeError: storeErrorOf(error) };
    }
  }
}
