/**
 * The checks of the store contracts (`dedupeStoreContract()`, `orderStoreContract()`): a failure is a
 * `ContractFailure` naming what was expected and what the store did.
 */

/** One case of a store contract: run it in any test runner; it rejects on a failure. */
export interface StoreContractCase {
  name: string;
  run: () => Promise<void>;
}

class ContractFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractFailure';
  }
}

export function check(ok: boolean, message: string): asserts ok {
  if (!ok) throw new ContractFailure(message);
}

/** Equal by value (JSON): numbers, strings, booleans, plain objects and lists. */
export function same(actual: unknown, expected: unknown, what: string): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  check(a === e, `${what}: expected ${e}, got ${a}`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
