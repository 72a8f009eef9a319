/**
 * Types of the payment notification (docs/kudos-service.md#notifications): the raw body as the service sends it, and the
 * normalized form handed to the application.
 *
 * @see docs/kudos-service.md#notifications
 */

/** Transaction status (docs/kudos-service.md#notifications). */
export type KudosTxStatus = 'pending' | 'success' | 'fail' | 'timeout';

/** Transfer amount as sent (docs/kudos-service.md#notifications): `amount` in the smallest unit, and its `denom`. */
export interface KudosRawAmount {
  amount: string;
  denom: string;
}

/** `tx` as sent (docs/kudos-service.md#notifications). In multi-recipient payments `to`/`toId` were arrays. */
export interface KudosRawTx {
  /** Sender wallet address (`cosmos1…`). */
  from: string;
  /** Sender user ID. */
  fromId: string;
  /** Receiver wallet address(es). */
  to: string | string[];
  /** Receiver user ID(s). */
  toId: string | string[];
  /** Originating time, epoch milliseconds. */
  ts: number;
  /** Completion time, epoch milliseconds; may be earlier than `ts` (different clocks). */
  completeTs: number;
  /** 64 hex characters (upper case once normalized). */
  txHash: string;
  /** Memo. */
  remarks: string;
  status: KudosTxStatus;
  /** Only `cosmosTransfer` is shown; any non-empty string is accepted. */
  type: string;
  /** One amount, or one per receiver when `to` is an array (observed). */
  amount: KudosRawAmount | KudosRawAmount[];
}

/** `metadata.kudosPay` as in the sample event (docs/kudos-service.md#notifications). */
export interface KudosPayParameters {
  agentId?: string;
  amounts?: string[];
  remarks?: string;
  agentFee?: string;
  toIds?: string[];
  [key: string]: unknown;
}

/** `metadata` as sent (docs/kudos-service.md#notifications): written by the payer, so only hints. */
export interface KudosRawMetadata {
  kudosPay?: KudosPayParameters;
  toIds?: string[];
  amounts?: string[];
  agentID?: string;
  agentId?: string;
  agentFee?: string;
  redirectUri?: string;
  remarks?: string;
  /** As the widget was given it: observed as a string (`"true"`). */
  blocking?: boolean | string;
  state?: string;
  [key: string]: unknown;
}

/** The notification body as sent: `{ tx, metadata }`. */
export interface KudosRawNotification {
  tx: KudosRawTx;
  metadata: KudosRawMetadata;
}

/** The amount, as the exact string and as a `bigint` (never a JavaScript number). */
export interface KudosAmount {
  /** Integer in the smallest unit, as sent (plain digits). */
  amount: string;
  /** The same value as a bigint, exact beyond 2^53. */
  value: bigint;
  /** Name of the smallest unit, verbatim (e.g. `nanokudos`). */
  denom: string;
}

/** Normalized transaction: receivers always as arrays, the amount with its exact `bigint`. */
export interface KudosTransaction extends Omit<KudosRawTx, 'to' | 'toId' | 'amount'> {
  /** Receiver wallet addresses, one per receiver (a single one as a list of one). */
  to: string[];
  /** Receiver user IDs, in the order of `to`. */
  toId: string[];
  /** The total paid to the receivers (one receiver: its amount). */
  amount: KudosAmount;
  /** What each receiver gets, in the order of `to`. */
  amounts: KudosAmount[];
}

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
}

/** A validated, normalized payment notification. */
export interface KudosNotification {
  /** Event key: `txHash:status`. The receiver processes each key once. */
  key: string;
  tx: KudosTransaction;
  metadata: KudosPaymentMetadata;
  /** Whether the transaction was confirmed independently (see the `confirm` option). */
  confirmed: boolean;
  /** The confirmer's reason when not confirmed. */
  confirmationReason?: string;
  /** `status === 'success'` and confirmed: the only state to treat as paid. */
  paid: boolean;
}
