/**
 * The transaction record (docs/kudos-service.md#notifications, docs/kudos-service.md#transactions):
 * as the service sends it (the `tx` of a notification, the answer of `GET {baseURL}/tx/id/{hash}`),
 * and as the receiver hands it to the application. The emulator sends {@link KudosRawTx}; the
 * receiver reads it into {@link KudosTransaction}. Adding a transaction field starts here.
 */

/** Transaction status (docs/kudos-service.md#notifications). */
export type KudosTxStatus = (typeof TX_STATUSES)[number];

/** Every {@link KudosTxStatus}: `pending`, then one of the final ones. */
export const TX_STATUSES = ['pending', 'success', 'fail', 'timeout'] as const;

/** Transfer amount as sent (docs/kudos-service.md#notifications): `amount` in the smallest unit, and its `denom`. */
export interface KudosRawAmount {
  amount: string;
  denom: string;
}

/**
 * `tx` as sent (docs/kudos-service.md#notifications). One output (a `MsgSend`): strings and one coin.
 * A `MsgMultiSend` (several recipients, or an agent fee): `to`/`toId` list every output, the agent's
 * too, and `amount` is one summed coin, or in some records one coin per output. A wallet without an
 * account is `null` as `fromId`, and `null` or `''` (the service's record keeper writes `''` in a
 * `MsgMultiSend`'s list) as an entry of `toId`.
 */
export interface KudosRawTx {
  /** Sender wallet address (`cosmos1…`). */
  from: string;
  /** Sender user ID; `null` for a wallet without an account. */
  fromId: string | null;
  /** Output wallet address(es). */
  to: string | string[];
  /** Output user ID(s), in the order of `to`; `''` or `null` for a wallet without an account. */
  toId: string | null | Array<string | null>;
  /** Originating time, epoch milliseconds. */
  ts: number;
  /**
   * Completion time (the block's), epoch milliseconds; may be earlier than `ts` (different clocks).
   * Only a `success` record has it: `pending`, `fail` and `timeout` records have none.
   */
  completeTs?: number;
  /** 64 hex characters (upper case once normalized). */
  txHash: string;
  remarks: string;
  status: KudosTxStatus;
  /** Only `cosmosTransfer` is shown. */
  type: string;
  /** One coin (one output, or the sum of every output), or one per output. */
  amount: KudosRawAmount | KudosRawAmount[];
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

/** One output of a transaction: a recipient, or the agent's fee. */
export interface KudosOutput {
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
// Extending the sent record's keys: a field added to KudosRawTx and not read by the receiver's
// parser (webhook/parse.ts) does not compile.
export interface KudosTransaction extends Record<keyof KudosRawTx, unknown> {
  /** Sender wallet address; null when the record had none. */
  from: string | null;
  /** Sender user ID; null for a wallet without an account. */
  fromId: string | null;
  /** Every output address, one per output (a single one as a list of one; empty when absent). */
  to: string[];
  /** Output user IDs, in the order of `to`; null for a wallet without an account (sent as `null` or `''`). */
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
