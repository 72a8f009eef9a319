import { createHash, timingSafeEqual } from 'node:crypto';

// The emulator's own small checks. They are no part of the service's contract, so the emulator does
// not borrow them from passport-kudos (whose public API they are not): this package's input is its
// own to read.

/** A plain object (not null, not an array): its keys may be read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Anything with properties (objects and arrays, not null). */
export function isObjectLike(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * Whether a secret someone gave is the expected one, in constant time whatever their lengths (both
 * are hashed first: comparing lengths would tell how long the secret is).
 */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** `value` when it is a finite number above 0 (or 0 and above with `zero`), else a TypeError naming `what`. */
export function positiveNumber(value: unknown, what: string, zero = false): number {
  if (typeof value === 'number' && Number.isFinite(value) && (zero ? value >= 0 : value > 0)) return value;
  throw new TypeError(`${what} must be a ${zero ? 'non-negative' : 'positive'} number`);
}

/** `url` without its trailing slashes (a loop: a pattern would backtrack on many slashes). */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 47) end--;
  return url.slice(0, end);
}
