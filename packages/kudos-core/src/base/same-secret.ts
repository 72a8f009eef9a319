import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a given secret equals the expected one, in constant time: both are hashed first, so the
 * comparison takes the same time whatever the lengths (timingSafeEqual needs equal lengths, and a
 * length check would tell how long the secret is).
 */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
