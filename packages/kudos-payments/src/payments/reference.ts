import { randomBytes } from 'node:crypto';
import { MAX_MEMO_BYTES, MAX_REMARKS } from 'kudos-core/chain';

/**
 * An order's reference: `ko` and 32 lower-case hex characters (128 random bits), unguessable. It is
 * the widget link's `state` and is written into its memo (`remarks`), which the chain records with
 * the transaction: a transaction found later on the chain (`reconcileChain()`, a return page) still names
 * its order.
 */
const REFERENCE = /^ko[0-9a-f]{32}$/;

/** Every reference written in a text, standing alone (not inside a longer word). */
const REFERENCE_IN_TEXT = /(?<![0-9A-Za-z])ko[0-9a-f]{32}(?![0-9A-Za-z])/g;

/** The memo's words before the reference when the order gives none. */
const DEFAULT_MEMO_LABEL = 'order';

export function newReference(): string {
  return `ko${randomBytes(16).toString('hex')}`;
}

export function isReference(value: unknown): value is string {
  return typeof value === 'string' && REFERENCE.test(value);
}

/** Splits a text into what a reader sees as characters (an emoji with its modifiers is one). */
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The longest start of `text` within `units` UTF-16 units and `bytes` UTF-8 bytes, cut between two
 * characters (never inside one: a surrogate pair, a letter with its accent, an emoji sequence).
 */
function cutAtCharacter(text: string, units: number, bytes: number): string {
  let end = 0;
  let usedBytes = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = Buffer.byteLength(segment, 'utf8');
    if (end + segment.length > units || usedBytes + size > bytes) break;
    end += segment.length;
    usedBytes += size;
  }
  return text.slice(0, end).trimEnd();
}

/**
 * The memo of an order's link: its label, then the reference, always whole. The whole memo fits
 * both limits (docs/kudos-service.md#memo): at most 255 UTF-16 units (the service cuts longer ones)
 * and 256 UTF-8 bytes (the chain refuses longer ones, so a link with a longer memo could never be
 * paid), the label cut between two characters to make room.
 */
export function memoFor(reference: string, label: string = DEFAULT_MEMO_LABEL): string {
  // A label that names an order's reference (another order's, pasted in) would make the memo name two
  // orders, and the order's own full payment an `order_conflict`: every reference is taken out of it.
  const words = cutAtCharacter(
    label.replace(REFERENCE_IN_TEXT, ' ').replace(/\s+/g, ' ').trim(),
    MAX_REMARKS - reference.length - 1,
    MAX_MEMO_BYTES - Buffer.byteLength(reference, 'utf8') - 1,
  );
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
