// The emulator's payment and transaction types: shared by the state (which holds transactions)
// and the payment code (which makes them), so that neither imports the other.

/** Final statuses a test can force on a payment. */
export type PaymentOutcome = 'success' | 'fail' | 'timeout';

/** Transaction status (docs/kudos-service.md#notifications). */
export type TxStatus = 'pending' | PaymentOutcome;

/** What the payment widget was asked to do (docs/kudos-service.md#payment-widget). */
export interface PaymentRequest {
  /** Payer user ID. */
  from: string;
  /** Receiver user ID. */
  to: string;
  /** Whole tokens, decimal string. */
  amount: string;
  /** Agent user ID. */
  via?: string;
  /** Extra whole tokens to the agent. */
  fee?: string;
  remarks?: string;
  state?: string;
  redirectURI?: string;
  blocking?: boolean;
}

/** A transaction of the emulator's chain. */
export interface EmulatorTransaction {
  txHash: string;
  request: PaymentRequest;
  status: TxStatus;
  /** Epoch milliseconds at creation. */
  ts: number;
  /** Epoch milliseconds at completion (the creation time while pending). */
  completeTs: number;
  /** Block height once included (success or fail). */
  height: number | undefined;
  /** Resolves when the status is final. */
  settled: Promise<void>;
}
