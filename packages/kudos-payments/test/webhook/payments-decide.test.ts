import { describe, expect, it } from 'vitest';
import { judge, namedOrder, type PaymentFacts } from '../../src/payments/decide.js';
import type { KudosOrder } from '../../src/payments/records.js';
import { readOrder, readPayment, writeOrder, writePayment } from '../../src/payments/records.js';
import { isReference, memoFor, newReference, referenceInMemo } from '../../src/payments/reference.js';

// The decision of kudosPayments(), pure: which order a payment names, and whether it pays it. One
// table of cases, so that every path (notification, reconcile, the return page) is judged alike.

const A = newReference();
const B = newReference();
const facts = (over: Partial<PaymentFacts> = {}): PaymentFacts => ({
  txHash: 'AA'.repeat(32),
  received: 2_000_000_000n,
  memo: `order ${A}`,
  state: undefined,
  payer: 'alice',
  ...over,
});
const order = (over: Partial<KudosOrder> = {}): KudosOrder => ({
  reference: A,
  amount: '2',
  units: 2_000_000_000n,
  user: 'alice',
  status: 'open',
  createdAt: 1000,
  expiresAt: 5000,
  data: {},
  payment: null,
  ...over,
});

describe('references and memos', () => {
  it('makes unguessable references and finds exactly one in a memo', () => {
    expect(A).toMatch(/^ko[0-9a-f]{32}$/);
    expect(A).not.toBe(B);
    expect(isReference(A)).toBe(true);
    for (const bad of [undefined, '', 'ko', A.toUpperCase(), `${A}0`, ` ${A}`])
      expect(isReference(bad)).toBe(false);
    expect(referenceInMemo(`order ${A}`)).toBe(A);
    expect(referenceInMemo(`${A} paid, ${A} again`)).toBe(A);
    expect(referenceInMemo(`order ${A} and ${B}`)).toBe('several');
    for (const none of [null, '', 'kudos pay via shop-agent', `x${A}`, `${A}0`])
      expect(referenceInMemo(none)).toBe('none');
  });

  it('writes the reference last in a memo of at most 255 characters, whatever the label', () => {
    expect(memoFor(A)).toBe(`order ${A}`);
    expect(memoFor(A, '  Tip\n for  the blog ')).toBe(`Tip for the blog ${A}`);
    expect(memoFor(A, '')).toBe(A);
    const long = memoFor(A, 'x'.repeat(1000));
    expect(long).toHaveLength(255);
    expect(referenceInMemo(long)).toBe(A);
  });

  // The chain refuses a memo over 256 UTF-8 bytes (docs/kudos-service.md#memo): a label counted in
  // characters made links that could never be paid (120 CJK characters: a 695-byte memo).
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
  it.each([
    ['120 CJK characters', '漢'.repeat(120), '漢'],
    ['150 accented letters', 'é'.repeat(150), 'é'],
    ['120 emoji', '😀'.repeat(120), '😀'],
    ['a family emoji sequence', '👨‍👩‍👧‍👦'.repeat(40), '👨‍👩‍👧‍👦'],
    ['letters with combining accents', 'e\u0301'.repeat(200), 'e\u0301'],
    ['250 ASCII letters and one emoji', `${'a'.repeat(215)}😀${'b'.repeat(40)}`, undefined],
  ])(
    'cuts a label of %s to fit 256 bytes and 255 units, between characters, the reference whole',
    (_, label, unit) => {
      const memo = memoFor(A, label);
      expect(bytes(memo)).toBeLessThanOrEqual(256);
      expect(memo.length).toBeLessThanOrEqual(255);
      expect(memo.endsWith(` ${A}`)).toBe(true);
      expect(referenceInMemo(memo)).toBe(A);
      const words = memo.slice(0, -A.length - 1);
      expect(label.startsWith(words)).toBe(true);
      // Never half a character: the label is whole units of what a reader sees.
      if (unit !== undefined) expect(words).toBe(unit.repeat(words.length / unit.length));
      expect(words).not.toMatch(/[\uD800-\uDBFF]$/);
      // As long as it can be: one more character would not fit.
      const [next] = [
        ...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(label.slice(words.length)),
      ];
      if (next === undefined) return;
      expect(next.segment).toBe(unit ?? next.segment);
      const longer = `${words}${next.segment} ${A}`;
      expect(bytes(longer) > 256 || longer.length > 255).toBe(true);
    },
  );

  it('keeps a short label of any script whole', () => {
    for (const label of ['マグカップ', 'Café crème', '🎁 gift'])
      expect(memoFor(A, label)).toBe(`${label} ${A}`);
  });
});

describe('namedOrder(): the memo names the order; an authenticated state must agree', () => {
  const cases: Array<[string, Partial<PaymentFacts>, ReturnType<typeof namedOrder>]> = [
    ['memo only (a reconciled record)', {}, { reference: A }],
    ['memo and the same state', { state: A }, { reference: A }],
    ['memo and another state', { state: B }, { problem: 'order_conflict', reference: A }],
    ['two references in the memo', { memo: `${A} ${B}` }, { problem: 'order_conflict', reference: null }],
    // The memo decides on every path: a state alone names nothing (the return page sees none).
    [
      'no reference in the memo, a state',
      { memo: 'kudos pay', state: B },
      { problem: 'no_order', reference: null },
    ],
    [
      'a state that is no reference',
      { memo: 'kudos pay', state: 'cart-7' },
      { problem: 'no_order', reference: null },
    ],
    ['nothing', { memo: null }, { problem: 'no_order', reference: null }],
  ];
  for (const [name, over, expected] of cases) {
    it(name, () => expect(namedOrder(facts(over))).toEqual(expected));
  }
});

describe('judge(): paid in full, in time, by the right user, once', () => {
  const paidBy = (txHash: string) => ({ txHash, received: 2_000_000_000n, payer: 'alice', paidAt: 2000 });
  const cases: Array<[string, KudosOrder | undefined, Partial<PaymentFacts>, string]> = [
    ['an open order paid in full by its user', order(), {}, 'credited'],
    ['more than the price', order(), { received: 3_000_000_000n }, 'credited'],
    ['one nanokudos short', order(), { received: 1_999_999_999n }, 'underpaid'],
    ['another user', order(), { payer: 'mallory' }, 'wrong_payer'],
    ['a wallet without an account', order(), { payer: null }, 'wrong_payer'],
    ['an order for anyone', order({ user: null }), { payer: 'mallory' }, 'credited'],
    ['after its expiry', order({ expiresAt: 2999 }), {}, 'order_expired'],
    ['no such order', undefined, {}, 'unknown_order'],
    [
      'paid by another transaction',
      order({ status: 'paid', payment: paidBy('BB'.repeat(32)) }),
      {},
      'already_paid',
    ],
    [
      'paid by this one (a replay)',
      order({ status: 'fulfilled', payment: paidBy('AA'.repeat(32)) }),
      {},
      'credited',
    ],
  ];
  for (const [name, o, over, expected] of cases) {
    it(name, () => expect(judge(o, facts(over), 3000)).toBe(expected));
  }
});

describe('records: written and read back; anything else is not a record', () => {
  it('round-trips an order and a payment with exact amounts', () => {
    const paid = order({
      status: 'paid',
      payment: { txHash: 'CC'.repeat(32), received: 2n ** 70n, payer: null, paidAt: 1 },
    });
    expect(readOrder(writeOrder(paid))).toEqual(paid);
    const payment = {
      txHash: 'CC'.repeat(32),
      outcome: 'underpaid' as const,
      reference: A,
      received: 1n,
      payer: 'alice',
      source: 'reconcile' as const,
      decidedAt: 5,
      told: false,
      acknowledged: false,
    };
    expect(readPayment(writePayment(payment))).toEqual(payment);
    for (const bad of ['', 'null', '{}', '[]', writeOrder(order()).replace('"open"', '"refunded"')]) {
      expect(readOrder(bad)).toBeUndefined();
      expect(readPayment(bad)).toBeUndefined();
    }
    expect(readOrder(writeOrder(order()).replace('"2000000000"', '"-1"'))).toBeUndefined();
  });
});
