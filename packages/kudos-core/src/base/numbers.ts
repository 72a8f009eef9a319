/** What a number option must be: above 0 (or 0 and above), optionally whole, of some unit. */
interface NumberRule {
  /** `0` is allowed too. */
  zero?: boolean;
  /** A safe integer. */
  whole?: boolean;
  /** Shown in the message: `"timeout" must be a positive number of milliseconds`. */
  unit?: string;
}

/**
 * `value` when it is a finite number above 0 (see {@link NumberRule}), else a `TypeError` whose
 * message starts with `what`, e.g. `KudosStrategy option "timeout"`. NaN and Infinity are refused:
 * a timer of either fires at once.
 */
export function checkPositive(value: unknown, what: string, rule: NumberRule = {}): number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (rule.zero ? value >= 0 : value > 0) &&
    (!rule.whole || Number.isSafeInteger(value));
  if (!ok) {
    const kind = `${rule.zero ? 'non-negative' : 'positive'}${rule.whole ? ' whole' : ''} number`;
    throw new TypeError(`${what} must be a ${kind}${rule.unit ? ` of ${rule.unit}` : ''}`);
  }
  return value;
}
