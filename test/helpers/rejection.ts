import { expect } from 'vitest';
import { KudosTokenError } from '../../src/index.js';

/** Awaits a promise that must reject with an instance of `type` (default `KudosTokenError`), and returns the error. */
export async function rejectionOf<T extends Error = KudosTokenError>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => T = KudosTokenError as unknown as abstract new (
    ...args: never[]
  ) => T,
): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}
