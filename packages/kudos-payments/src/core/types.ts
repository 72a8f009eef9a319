import type { KudosTransaction } from 'kudos-core/chain';

/**
 * The payment notification as the receiver hands it to the application (docs/kudos-service.md#notifications).
 * What the service sends is the wire contract's: protocol/notification.ts and protocol/transaction.ts.
 */

/**
 * Normalized metadata: the known keys, whether sent at the top level or inside `kudosPay`, with
 * `agentID`/`agentId` merged into `agentId`. `raw` keeps every key as sent (minus `__proto__`,
 * `constructor` and `prototype`). Written by the payer: hints, not facts.
 */
export interface KudosPaymentMetadata {
  agentId?: string;
  toIds?: string[];
  amounts?: string[];
  agentFee?: string;
  redirectUri?: string;
  remarks?: string;
  blocking?: boolean;
  state?: string;
  raw: Record<string, unknown>;
}

/** Outcome of confirming a notification against the chain. */
export interface KudosConfirmation {
  confirmed: boolean;
  /** Why it is not confirmed, when it is not. */
  reason?: string;
  /**
   * What the shop's own wallets got (in `tx.amount.denom`), as the chain shows it; becomes the
   * notification's `received`. A confirmer that gives none (or answers a plain `true`) confirms no amount.
   */
  received?: bigint;
  /** The transaction's memo as the chain records it, when the confirmer read it. */
  memo?: string;
  /**
   * Not confirmed because the transaction is real and paid, but none of the shop's wallets: the
   * addresses it paid, as the chain spells them (docs/payments.md#money-that-went-elsewhere).
   */
  paidTo?: readonly string[];
  /** When the transaction's block was made (epoch milliseconds), as the chain shows it. */
  blockTime?: number;
  /**
   * Not confirmed because the chain's record contradicts the notification as sent (another amount,
   * denomination, recipient or hash; a failed transaction reported as a success; one not in a block):
   * what was sent is not what happened, so it decides nothing. The receiver refuses it (`unconfirmed`,
   * 422), keeps it for the operator (`unprocessed()`, its `lastError`) and leaves its key open for the
   * real delivery, `reconcileChain()` and `redrive()`.
   */
  contradicted?: boolean;
}

/** Where a notification came from: a delivery of the service, or the receiver's own lookup on the chain (`reconcileChain()`, a return page's `check()`). */
export type KudosNotificationSource = 'webhook' | 'reconcile';

/** A validated, normalized payment notification. */
export interface KudosNotification {
  /** Event key: `txHash:status`. The receiver processes each key once, whichever way it came. */
  key: string;
  /**
   * `webhook` for a delivery (also when `redrive()` runs it again), `reconcile` for a record that
   * `reconcileChain()` or a return page read from the chain; a reconciled one has no metadata (`metadata.raw` is empty).
   */
  source: KudosNotificationSource;
  tx: KudosTransaction;
  metadata: KudosPaymentMetadata;
  /** Whether the transaction was confirmed independently (see the `confirm` option). */
  confirmed: boolean;
  /** The confirmer's reason when not confirmed. */
  confirmationReason?: string;
  /**
   * `status === 'success'` and confirmed: with `cosmosConfirmer`, the chain shows the payer's transfer
   * to one of the shop's own `wallet` addresses. Never true without a confirmer.
   */
  paid: boolean;
  /**
   * What the shop's wallets got, exact, in `tx.amount.denom`, as the confirmer found it on the chain
   * (for a payment with an agent fee or several recipients: the shop's part only); `0n` until
   * confirmed. Compare it with what the order costs: `tx.amount` is what the notification claims.
   */
  received: bigint;
  /**
   * The memo as the chain records it, read by the confirmer (`cosmosConfirmer` does); null when no
   * confirmer read one. `tx.remarks` is what the notification says it is.
   */
  memo: string | null;
  /**
   * Set when the confirmer found the transaction real and paid, but to none of the shop's own
   * wallets: the addresses the chain shows it paid (a shop whose `wallet` option names another address).
   */
  paidTo?: readonly string[];
  /**
   * When the transaction's block was made (epoch milliseconds), when the confirmer read it
   * (`cosmosConfirmer` does): when it was paid, however late a notification brings it.
   */
  blockTime?: number;
}
