import { isObjectLike, isRecord } from '../guards.js';
import { KudosWebhookError } from './errors.js';
import type {
  KudosAmount,
  KudosNotification,
  KudosPaymentMetadata,
  KudosTransaction,
  KudosTxStatus,
} from './types.js';

/** Keys that never reach application objects (prototype pollution). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Deepest nesting accepted in a notification. */
const MAX_DEPTH = 32;

/** Longest amount accepted, in digits (a 256-bit integer has 78). */
const MAX_AMOUNT_DIGITS = 78;

/** Longest string accepted for ids, addresses, denoms and types. */
const MAX_TEXT = 256;

const STATUSES: readonly KudosTxStatus[] = ['pending', 'success', 'fail', 'timeout'];
const AMOUNT = /^[1-9][0-9]*$/;
const TX_HASH = /^[0-9A-Fa-f]{64}$/;

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

/**
 * Copies a parsed JSON value without `__proto__`, `constructor` and `prototype` keys at any
 * depth, so that nothing the sender wrote can reach a prototype. Throws past {@link MAX_DEPTH}.
 */
export function sanitize(value: unknown, path = '', depth = 0): unknown {
  if (depth > MAX_DEPTH)
    throw new KudosWebhookError('too_deep', `nested deeper than ${MAX_DEPTH} levels`, path);
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
    throw new KudosWebhookError('missing_field', `"${path}" is required`, path);
  }
  return record[key];
}

function text(record: Json, key: string, path: string, allowEmpty = false): string {
  const value = required(record, key, path);
  if (typeof value !== 'string') {
    throw new KudosWebhookError('invalid_field', `"${path}" must be a string, not ${typeName(value)}`, path);
  }
  if ((!allowEmpty && value === '') || value.length > MAX_TEXT * 4) {
    throw new KudosWebhookError(
      'invalid_field',
      `"${path}" must be a non-empty string of at most ${MAX_TEXT * 4} characters`,
      path,
    );
  }
  return value;
}

function textOrList(record: Json, key: string, path: string): string[] {
  const value = required(record, key, path);
  const list = typeof value === 'string' ? [value] : value;
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    !list.every((v) => typeof v === 'string' && v !== '' && v.length <= MAX_TEXT)
  ) {
    throw new KudosWebhookError(
      'invalid_field',
      `"${path}" must be a non-empty string or array of strings`,
      path,
    );
  }
  return list as string[];
}

function timestamp(record: Json, key: string, path: string): number {
  const value = required(record, key, path);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new KudosWebhookError(
      'invalid_timestamp',
      `"${path}" must be a finite non-negative number (epoch milliseconds), not ${typeName(value)}`,
      path,
    );
  }
  return value;
}

function parseAmount(value: unknown, path: string): KudosAmount {
  if (!isObject(value)) {
    throw new KudosWebhookError('invalid_field', `"${path}" must be an object, not ${typeName(value)}`, path);
  }
  const amount = required(value, 'amount', `${path}.amount`);
  if (typeof amount !== 'string' || amount.length > MAX_AMOUNT_DIGITS || !AMOUNT.test(amount)) {
    throw new KudosWebhookError(
      'invalid_amount',
      `"${path}.amount" must be a positive integer string of plain digits without leading zeros, at most ${MAX_AMOUNT_DIGITS} long`,
      `${path}.amount`,
    );
  }
  const denom = text(value, 'denom', `${path}.denom`);
  if (denom.length > MAX_TEXT) {
    throw new KudosWebhookError(
      'invalid_field',
      `"${path}.denom" is longer than ${MAX_TEXT}`,
      `${path}.denom`,
    );
  }
  return { amount, value: BigInt(amount), denom };
}

/**
 * `tx.amount`: one amount, or (a payment to several receivers, observed) one per receiver of `to`,
 * all in one denom. Answers the amounts and their total.
 */
function parseAmounts(value: unknown, receivers: number): { amount: KudosAmount; amounts: KudosAmount[] } {
  if (!Array.isArray(value)) {
    const amount = parseAmount(value, 'tx.amount');
    if (receivers !== 1) {
      throw new KudosWebhookError(
        'invalid_field',
        '"tx.amount" must be an array with one amount per receiver of "tx.to"',
        'tx.amount',
      );
    }
    return { amount, amounts: [amount] };
  }
  if (value.length !== receivers) {
    throw new KudosWebhookError(
      'invalid_field',
      '"tx.amount" must have one amount per receiver of "tx.to"',
      'tx.amount',
    );
  }
  const amounts = value.map((item, i) => parseAmount(item, `tx.amount[${i}]`));
  const denom = amounts[0]?.denom ?? '';
  if (!amounts.every((a) => a.denom === denom)) {
    throw new KudosWebhookError(
      'invalid_field',
      '"tx.amount" must use one denom for every receiver',
      'tx.amount',
    );
  }
  const total = amounts.reduce((sum, a) => sum + a.value, 0n);
  return { amount: { amount: total.toString(), value: total, denom }, amounts };
}

function parseTx(value: unknown): KudosTransaction {
  if (!isObject(value))
    throw new KudosWebhookError('invalid_field', `"tx" must be an object, not ${typeName(value)}`, 'tx');
  const txHash = required(value, 'txHash', 'tx.txHash');
  if (typeof txHash !== 'string' || !TX_HASH.test(txHash)) {
    throw new KudosWebhookError(
      'invalid_tx_hash',
      '"tx.txHash" must be 64 hexadecimal characters',
      'tx.txHash',
    );
  }
  const status = required(value, 'status', 'tx.status');
  if (typeof status !== 'string' || !STATUSES.includes(status as KudosTxStatus)) {
    throw new KudosWebhookError(
      'invalid_status',
      `"tx.status" must be one of ${STATUSES.join(', ')}`,
      'tx.status',
    );
  }
  const remarks = value.remarks === undefined ? '' : text(value, 'remarks', 'tx.remarks', true);
  const to = textOrList(value, 'to', 'tx.to');
  const toId = textOrList(value, 'toId', 'tx.toId');
  if (toId.length !== to.length) {
    throw new KudosWebhookError(
      'invalid_field',
      '"tx.toId" must name one user per address of "tx.to"',
      'tx.toId',
    );
  }
  return {
    from: text(value, 'from', 'tx.from'),
    fromId: text(value, 'fromId', 'tx.fromId'),
    to,
    toId,
    ts: timestamp(value, 'ts', 'tx.ts'),
    completeTs: timestamp(value, 'completeTs', 'tx.completeTs'),
    txHash: txHash.toUpperCase(),
    remarks,
    status: status as KudosTxStatus,
    type: text(value, 'type', 'tx.type'),
    ...parseAmounts(required(value, 'amount', 'tx.amount'), to.length),
  };
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/**
 * Reads the metadata hints: each known key from the top level or from `kudosPay` (top level
 * wins), kept only when it has the expected type. Unknown keys stay in `raw`.
 */
function parseMetadata(value: unknown): KudosPaymentMetadata {
  if (value === undefined || value === null) return { raw: {} };
  if (!isObject(value)) {
    throw new KudosWebhookError(
      'invalid_field',
      `"metadata" must be an object, not ${typeName(value)}`,
      'metadata',
    );
  }
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
 * Validates and normalizes a payment notification (docs/kudos-service.md#notifications). Throws `KudosWebhookError` with a
 * stable `code`, a `status` (400 or 422) and the `path` of the offending field.
 *
 * The result is built from a sanitized copy: `__proto__`, `constructor` and `prototype` keys never
 * reach it, and no global prototype is touched. `confirmed` and `paid` are false until a
 * confirmer says otherwise.
 *
 * @see docs/kudos-service.md#notifications
 */
export function parseKudosNotification(body: unknown): KudosNotification {
  const clean = sanitize(body);
  if (!isObject(clean)) {
    throw new KudosWebhookError(
      'not_an_object',
      `notification must be a JSON object, not ${typeName(clean)}`,
    );
  }
  const tx = parseTx(required(clean, 'tx', 'tx'));
  return {
    key: `${tx.txHash}:${tx.status}`,
    tx,
    metadata: parseMetadata(clean.metadata),
    confirmed: false,
    paid: false,
  };
}
