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

/**
 * `tx` as sent (docs/kudos-service.md#notifications). One output (a `MsgSend`): strings and one coin.
 * A `MsgMultiSend` (several receivers, or an agent fee): `to`/`toId` list every output, the agent's
 * too, and `amount` is one summed coin, or in some records one coin per output. `fromId` and `toId`
 * entries are `null` for wallets without an account.
 */
export interface KudosRawTx {
  /** Sender wallet address (`cosmos1…`). */
  from: string;
  /** Sender user ID; `null` for a wallet without an account. */
  fromId: string | null;
  /** Output wallet address(es). */
  to: string | string[];
  /** Output user ID(s), in the order of `to`. */
  toId: string | null | Array<string | null>;
  /** Originating time, epoch milliseconds. */
  ts: number;
  /** Completion time, epoch milliseconds; may be earlier than `ts` (different clocks). */
  completeTs: number;
  /** 64 hex characters (upper case once normalized). */
  txHash: string;
  /** Memo. */
  remarks: string;
  status: KudosTxStatus;
  /** Only `cosmosTransfer` is shown. */
  type: string;
  /** One coin (one output, or the sum of every output), or one per output. */
  amount: KudosRawAmount | KudosRawAmount[];
}

/** `metadata.kudosPay`: the widget's values, each only when not empty (docs/kudos-service.md#notifications). */
export interface KudosPayParameters {
  toIds?: string[];
  amounts?: string[];
  agentId?: string;
  agentFee?: string;
  redirectUri?: string;
  remarks?: string;
  blocking?: string;
  state?: string;
  [key: string]: unknown;
}

/**
 * `metadata` as sent (docs/kudos-service.md#notifications): written by the payer, so only hints.
 * The service puts the widget's values inside `kudosPay`; the top-level keys are read too.
 */
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

/** One output of a transaction: a receiver, or the agent's fee. */
export interface KudosOutput {
  /** Wallet address. */
  address: string;
  /** User ID; null for a wallet without an account (or when the record names none). */
  userId: string | null;
  /** What this output got; null when the record gives only the total. */
  amount: KudosAmount | null;
  /**
   * The agent's fee output: its user is the agent that `metadata.kudosPay.agentId` names. The
   * metadata is the payer's, so this is a hint; `cosmosConfirmer` checks the chain.
   */
  agent: boolean;
}

/**
 * Normalized transaction. Only `txHash`, `status` and `amount` are required of a notification; the
 * rest is what the record had: `null` (or empty) when it was absent or malformed, never a refusal.
 */
export interface KudosTransaction {
  /** Sender wallet address; null when the record had none. */
  from: string | null;
  /** Sender user ID; null for a wallet without an account. */
  fromId: string | null;
  /** Every output address, one per output (a single one as a list of one; empty when absent). */
  to: string[];
  /** Output user IDs, in the order of `to`; null for a wallet without an account. */
  toId: Array<string | null>;
  /** Originating time, epoch milliseconds; null when absent or not a number. */
  ts: number | null;
  /** Completion time, epoch milliseconds; null when absent or not a number. */
  completeTs: number | null;
  /** 64 hex characters, upper case. */
  txHash: string;
  /** Memo; empty when absent. */
  remarks: string;
  status: KudosTxStatus;
  /** Transaction type (`cosmosTransfer`); empty when absent. */
  type: string;
  /** The total of the transaction, exact (`bigint`): every output, the agent's fee too when it is one. */
  amount: KudosAmount;
  /** What each output of `to` got, when the record says; null when it gives only the total. */
  amounts: KudosAmount[] | null;
  /** The outputs, with the agent's fee output told apart. */
  outputs: KudosOutput[];
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

/** Where a notification came from: a delivery of the service, or the receiver's own lookup (`reconcile()`). */
export type KudosNotificationSource = 'webhook' | 'reconcile';

/** A validated, normalized payment notification. */
export interface KudosNotification {
  /** Event key: `txHash:status`. The receiver processes each key once, whichever way it came. */
  key: string;
  /**
   * `webhook` for a delivery (also when `redrive()` runs it again), `reconcile` for a record that
   * `reconcile()` fetched from the service; a reconciled one has no metadata (`metadata.raw` is empty).
   */
  source: KudosNotificationSource;
  tx: KudosTransaction;
  metadata: KudosPaymentMetadata;
  /** Whether the transaction was confirmed independently (see the `confirm` option). */
  confirmed: boolean;
  /** The confirmer's reason when not confirmed. */
  confirmationReason?: string;
  /** `status === 'success'` and confirmed: the only state to treat as paid. */
  paid: boolean;
}
