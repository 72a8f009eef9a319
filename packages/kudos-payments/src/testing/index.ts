/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * kudos-payments/testing: what the tests of an app or of a third-party store need from the library:
 * the contract suites that a dedupe store and an order store must pass. The local Kudos emulator is
 * its own package, `kudos-emulator`. Never loaded by the package's root entry point.
 *
 * @packageDocumentation
 */

export {
  type OrderStoreContractCase,
  type OrderStoreContractOptions,
  orderStoreContract,
} from '../payments/order-store-contract.js';
export {
  type DedupeStoreContractCase,
  type DedupeStoreContractOptions,
  dedupeStoreContract,
} from '../stores/store-contract.js';
