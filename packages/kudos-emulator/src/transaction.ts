import type { AddressPrefix, KudosTxStatus } from 'kudos-core/chain';

// The emulator's payment and transaction types: shared by the state (which holds transactions)
// and the payment code (which makes them), so that neither imports the other.

/** The final statuses of a transaction (every status but `pending`): what a test can force on a payment. */
export type FinalTxStatus = Exclude<KudosTxStatus, 'pending'>;

/** A checked widget payment (docs/kudos-service.md#payment-widget). */
export interface PaymentRequest {
  /** Payer user ID. */
  from: string;
  /** Receiver user IDs, one or more. */
  to: string[];
  /** Whole tokens for each recipient, as decimal strings (`0.5` allowed), in the order of `to`. */
  amounts: string[];
  /** Agent user ID. */
  via?: string;
  /** Extra tokens to the agent, as given (decimal string). */
  fee?: string;
  /** The memo: as given, or `kudos pay` (+ ` via <agent>`), cut to 255 characters. */
  remarks: string;
  state?: string;
  redirectURI?: string;
  /** Any non-empty `blocking` value counts as set (observed). */
  blocking: boolean;
  /**
   * Popup mode (any `opener` but `'0'`): the result goes to `window.opener` by `postMessage`, to the
   * origin of `redirect_uri`, instead of a redirect (observed).
   */
  opener: boolean;
  /** The widget's parameters exactly as given, for the notification's metadata. */
  given: Readonly<Record<string, string>>;
}

export interface EmulatorTransaction {
  txHash: string;
  request: PaymentRequest;
  status: KudosTxStatus;
  /** The final status it reaches (or reached). */
  outcome: FinalTxStatus;
  /** Epoch milliseconds at creation. */
  ts: number;
  /** Epoch milliseconds at completion (the creation time while pending). */
  completeTs: number;
  /** Block height once included (success or fail). */
  height: number | undefined;
  /**
   * How the recipients' addresses are spelled on the chain and in the record: `kudos` (the main
   * prefix, as the widget pays since 2022) or `cosmos` (older records). Missing in older state files: `cosmos`.
   */
  paidPrefix?: AddressPrefix;
  /**
   * Whether the payer's browser posted the widget's metadata after the broadcast. When it did not
   * (an expired session, a closed tab), the money moved but the record has no metadata, no
   * notification is sent, and the widget neither redirects nor posts to its opener (observed).
   * Missing: true.
   */
  metadataPosted?: boolean;
  /** Resolves when the status is final. */
  settled: Promise<void>;
}
