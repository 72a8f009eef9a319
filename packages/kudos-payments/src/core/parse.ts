import { isObjectLike, isRecord } from 'kudos-core';
import {
  type KudosAmount,
  type KudosOutput,
  type KudosTransaction,
  type KudosTxStatus,
  TX_STATUSES,
} from 'kudos-core/chain';
import { KudosNotificationError } from './errors.js';
import type { KudosNotification, KudosNotificationSource, KudosPaymentMetadata } from './types.js';

/** Keys that never reach application objects (prototype pollution). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Deepest nesting accepted in a notification. */
const MAX_DEPTH = 32;

/** Longest amount accepted, in digits (a 256-bit integer has 78). */
const MAX_AMOUNT_DIGITS = 78;

/** Longest string accepted for ids, addresses, denoms and types. */
const MAX_TEXT = 256;

const AMOUNT = /^[1-9][0-9]*$/;
const TX_HASH = /^[0-9A-Fa-f]{64}$/;

export type Json = Record<string, unknown>;

/**
 * Copies a parsed JSON value without `__proto__`, `constructor` and `prototype` keys at any
 * depth, so that nothing the sender wrote can reach a prototype. Throws past {@link MAX_DEPTH}.
 */
export function sanitize(value: unknown, path = '', depth = 0): unknown {
  if (depth > MAX_DEPTH)
    throw new KudosNotificationError('too_deep', { message: `nested deeper than ${MAX_DEPTH} levels`, path });
  if (Array.isArray(value)) return value.map((v, i) => sanitize(v, `${path}[${i}]`, depth + 1));
  if (!isObjectLike(value)) return value;
  const copy: Json = {};
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) continue;
    copy[key] = sanitize((value as Json)[key], path ? `${path}.${key}` : key, depth + 1);
  }
  return copy;
}

/** A JSON object (not an array, not null). */
export const isObject: (value: unknown) => value is Json = isRecord;

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

function required(record: Json, key: string, path: string): unknown {
  if (!Object.hasOwn(record, key) || record[key] === undefined) {
    throw new KudosNotificationError('missing_field', { message: `"${path}" is required`, path });
  }
  return record[key];
}

/** A string field, or `fallback` when it is absent or not a string: a shape never refuses money. */
function textOr<T>(record: Json, key: string, fallback: T): string | T {
  const value = record[key];
  return typeof value === 'string' ? value : fallback;
}

/** A string or a list (several outputs); entries that are not strings become `fallback`. */
function listOf<T>(record: Json, key: string, fallback: T): Array<string | T> {
  const value = record[key];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return [];
  return value.map((v) => (typeof v === 'string' ? v : fallback));
}

/** Epoch milliseconds, or null when absent or not a finite non-negative number. */
function timestampOrNull(record: Json, key: string): number | null {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function parseAmount(value: unknown, path: string): KudosAmount {
  if (!isObject(value)) {
    throw new KudosNotificationError('invalid_amount', {
      message: `"${path}" must be an object, not ${typeName(value)}`,
      path,
    });
  }
  const amount = required(value, 'amount', `${path}.amount`);
  if (typeof amount !== 'string' || amount.length > MAX_AMOUNT_DIGITS || !AMOUNT.test(amount)) {
    throw new KudosNotificationError('invalid_amount', {
      message: `"${path}.amount" must be a positive integer string of plain digits without leading zeros, at most ${MAX_AMOUNT_DIGITS} long`,
      path: `${path}.amount`,
    });
  }
  const denom = value.denom;
  if (typeof denom !== 'string' || denom === '' || denom.length > MAX_TEXT) {
    throw new KudosNotificationError('invalid_amount', {
      message: `"${path}.denom" must be a non-empty string of at most ${MAX_TEXT} characters`,
      path: `${path}.denom`,
    });
  }
  return { amount, value: BigInt(amount), denom };
}

/**
 * `tx.amount`, in every shape the service sends (docs/kudos-service.md#notifications): one coin
 * (one output: its amount; several outputs of a `MsgMultiSend`: their sum, per-output amounts
 * unknown), or a list of coins (their sum; per output when there is one per address of `to`).
 * Coins of different denoms have no total, and are refused.
 */
function parseAmounts(
  value: unknown,
  outputs: number,
): { amount: KudosAmount; amounts: KudosAmount[] | null } {
  if (!Array.isArray(value)) {
    const amount = parseAmount(value, 'tx.amount');
    return { amount, amounts: outputs === 1 ? [amount] : null };
  }
  if (value.length === 0) {
    throw new KudosNotificationError('invalid_amount', {
      message: '"tx.amount" must hold at least one coin',
      path: 'tx.amount',
    });
  }
  const coins = value.map((item, i) => parseAmount(item, `tx.amount[${i}]`));
  const denom = coins[0]?.denom ?? '';
  if (!coins.every((a) => a.denom === denom)) {
    throw new KudosNotificationError('invalid_amount', {
      message: '"tx.amount" must use one denom for every coin',
      path: 'tx.amount',
    });
  }
  const total = coins.reduce((sum, a) => sum + a.value, 0n);
  const amount =
    coins.length === 1 ? (coins[0] as KudosAmount) : { amount: total.toString(), value: total, denom };
  return { amount, amounts: coins.length === outputs ? coins : null };
}

/**
 * The transaction: a valid `txHash`, `status` and `amount` are required, and that is all. Every
 * other field is read as it comes (absent or malformed: null, empty), so that no real payment is
 * refused for its shape: the service retries a refusal a few times, then gives up.
 */
function parseTx(value: unknown): Omit<KudosTransaction, 'outputs'> {
  if (!isObject(value))
    throw new KudosNotificationError('missing_field', {
      message: `"tx" must be an object, not ${typeName(value)}`,
      path: 'tx',
    });
  const txHash = required(value, 'txHash', 'tx.txHash');
  if (typeof txHash !== 'string' || !TX_HASH.test(txHash)) {
    throw new KudosNotificationError('invalid_tx_hash', {
      message: '"tx.txHash" must be 64 hexadecimal characters',
      path: 'tx.txHash',
    });
  }
  const status = required(value, 'status', 'tx.status');
  if (typeof status !== 'string' || !(TX_STATUSES as readonly string[]).includes(status)) {
    throw new KudosNotificationError('invalid_status', {
      message: `"tx.status" must be one of ${TX_STATUSES.join(', ')}`,
      path: 'tx.status',
    });
  }
  const to = listOf(value, 'to', '');
  // A wallet without an account: null, or '' as the service writes it in a MsgMultiSend's list.
  const toId = listOf(value, 'toId', null).map((id) => (id === '' ? null : id));
  return {
    from: textOr(value, 'from', null),
    fromId: textOr(value, 'fromId', null),
    to,
    toId,
    ts: timestampOrNull(value, 'ts'),
    completeTs: timestampOrNull(value, 'completeTs'),
    txHash: txHash.toUpperCase(),
    remarks: textOr(value, 'remarks', ''),
    status: status as KudosTxStatus,
    type: textOr(value, 'type', ''),
    ...parseAmounts(required(value, 'amount', 'tx.amount'), Math.max(to.length, 1)),
  };
}

/**
 * Each output of the transaction, in the order of `to`: its address, its user (null for a wallet
 * without an account), its amount (null when the record gives only the total) and whether it is the
 * agent's fee output (the one whose user is the agent `metadata.kudosPay` names: a payer's hint).
 */
function outputsOf(tx: Omit<KudosTransaction, 'outputs'>, agentId: string | undefined): KudosOutput[] {
  return tx.to.map((address, i) => {
    const userId = tx.toId[i] ?? null;
    return {
      address,
      userId,
      amount: tx.amounts?.[i] ?? null,
      agent: agentId !== undefined && userId === agentId,
    };
  });
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/**
 * Reads the metadata hints: each known key from the top level or from `kudosPay` (top level
 * wins), kept only when it has the expected type. Unknown keys stay in `raw`.
 */
function parseMetadata(value: unknown): KudosPaymentMetadata {
  // The payer's hints: metadata of another shape is no metadata, never a refused payment.
  if (!isObject(value)) return { raw: {} };
  const pay = isObject(value.kudosPay) ? value.kudosPay : {};
  const pick = (key: string): unknown => (value[key] !== undefined ? value[key] : pay[key]);
  const metadata: KudosPaymentMetadata = { raw: value };
  const agentId = [value.agentId, value.agentID, pay.agentId, pay.agentID].find(isString);
  if (agentId !== undefined) metadata.agentId = agentId;
  for (const key of ['agentFee', 'redirectUri', 'remarks', 'state'] as const) {
    const v = pick(key);
    if (isString(v)) metadata[key] = v;
  }
  for (const key of ['toIds', 'amounts'] as const) {
    const v = pick(key);
    if (isStringList(v)) metadata[key] = v;
  }
  // The widget's value as given (observed: the string "true"); like the service, any non-empty
  // value counts as set. The value as sent stays in `raw`.
  const blocking = pick('blocking');
  if (typeof blocking === 'boolean') metadata.blocking = blocking;
  else if (typeof blocking === 'string') metadata.blocking = blocking !== '';
  return metadata;
}

/**
 * Validates and normalizes a payment notification (docs/kudos-service.md#notifications). Only what
 * money needs is required: a JSON object with `tx.txHash` (64 hex), `tx.status` and `tx.amount`
 * (coins of one denom); every shape the service sends passes. Otherwise throws `KudosNotificationError`
 * with a stable `code`, a `status` (400 or 422) and the `path` of the offending field.
 *
 * The result is built from a sanitized copy: `__proto__`, `constructor` and `prototype` keys never
 * reach it, and no global prototype is touched. `confirmed` and `paid` are false, and `received`
 * is `0n`, until a confirmer says otherwise.
 *
 * @see docs/kudos-service.md#notifications
 */
export function parseKudosNotification(
  body: unknown,
  source: KudosNotificationSource = 'webhook',
): KudosNotification {
  return parseSanitized(sanitize(body), source);
}

/** {@link parseKudosNotification} of a body that `sanitize()` already copied (the pipeline keeps that copy). */
export function parseSanitized(clean: unknown, source: KudosNotificationSource): KudosNotification {
  if (!isObject(clean)) {
    throw new KudosNotificationError('not_an_object', {
      message: `notification must be a JSON object, not ${typeName(clean)}`,
    });
  }
  const parsed = parseTx(required(clean, 'tx', 'tx'));
  const metadata = parseMetadata(clean.metadata);
  const tx: KudosTransaction = { ...parsed, outputs: outputsOf(parsed, metadata.agentId) };
  return {
    key: `${tx.txHash}:${tx.status}`,
    source,
    tx,
    metadata,
    confirmed: false,
    paid: false,
    received: 0n,
    memo: null,
  };
}
