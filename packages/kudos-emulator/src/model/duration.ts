/** Milliseconds of each duration unit. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Reads a duration such as `90s`, `61m`, `1h`, `1h30m` or `500ms` (a bare number is milliseconds).
 * Answers milliseconds, or undefined when the text is not a duration. No regular expression: the
 * text may come from a request.
 */
export function parseDuration(text: string): number | undefined {
  if (text === '' || text.length > 64) return undefined;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    let end = at;
    while (
      end < text.length &&
      text[end] !== undefined &&
      (text[end] as string) >= '0' &&
      (text[end] as string) <= '9'
    )
      end++;
    if (end === at) return undefined;
    const amount = Number(text.slice(at, end));
    let unitEnd = end;
    while (unitEnd < text.length && !((text[unitEnd] as string) >= '0' && (text[unitEnd] as string) <= '9'))
      unitEnd++;
    const unit = text.slice(end, unitEnd);
    if (unit === '' && unitEnd === text.length && at === 0) return amount; // a bare number
    const factor = UNITS[unit];
    if (factor === undefined) return undefined;
    total += amount * factor;
    at = unitEnd;
  }
  return Number.isSafeInteger(total) ? total : undefined;
}
