/**
 * Type guards shared by every room: values from outside (JSON bodies, options, tokens) arrive as
 * `unknown` and are narrowed here, not by casts.
 */

/** A plain object: not null, not an array. A parsed JSON object passes. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Anything with properties (objects and arrays, not null): `'key' in value` is then allowed. */
export function isObjectLike(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** A promise or anything that behaves like one (a value with a `then` method). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    'then' in value &&
    typeof value.then === 'function'
  );
}
