import { randomBytes } from 'node:crypto';
import { MAX_REMARKS } from '../../protocol/widget.js';

/**
 * An order's reference: `ko` and 32 lower-case hex characters (128 random bits), unguessable. It is
 * the widget link's `state` and is written into its memo (`remarks`), which the chain records with
 * the transaction: a transaction found later by its hash (`reconcile()`, a return page) still names
 * its order.
 */
const REFERENCE = /^ko[0-9a-f]{32}$/;

/** Every reference written in a text, standing alone (not inside a longer word). */
const REFERENCE_IN_TEXT = /(?<![0-9A-Za-z])ko[0-9a-f]{32}(?![0-9A-Za-z])/g;

/** The memo's words before the reference when the order gives none. */
export const DEFAULT_MEMO_LABEL = 'order';

export function newReference(): string {
  return `ko${randomBytes(16).toString('hex')}`;
}

export function isReference(value: unknown): value is string {
  return typeof value === 'string' && REFERENCE.test(value);
}

/** The memo of an order's link: its label, cut so that the reference always fits, then the reference. */
export function memoFor(reference: string, label: string = DEFAULT_MEMO_LABEL): string {
  const room = MAX_REMARKS - reference.length - 1;
  const words = label.replace(/\s+/g, ' ').trim().slice(0, room);
  return words === '' ? reference : `${words} ${reference}`;
}

/**
 * The one order a memo names: its reference when it holds exactly one (written once or more);
 * `none` when it holds none, `several` when it holds different ones (an edited memo).
 */
export function referenceInMemo(memo: string | null): string | 'none' | 'several' {
  const [first, ...others] = new Set(memo?.match(REFERENCE_IN_TEXT) ?? []);
  if (first === undefined) return 'none';
  return others.length > 0 ? 'several' : first;
}
