/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * passport-kudos/testing: a local Kudos emulator for development and tests.
 * Never loaded by the package's root entry point.
 *
 * @example
 * import { startKudosEmulator } from 'passport-kudos/testing';
 * const kudos = await startKudosEmulator({ port: 0 });
 * // new KudosStrategy({ authURL: kudos.authURL, baseURL: kudos.baseURL, ... })
 * await kudos.close();
 *
 * @packageDocumentation
 */

export {
  type AuthorizeArguments,
  type KudosEmulator,
  type PayArguments,
  startKudosEmulator,
} from '../emulator/emulator.js';
export {
  type CodeParam,
  DEMO_CLIENT,
  DEMO_USERS,
  type EmulatorAgent,
  type EmulatorClient,
  type EmulatorUser,
  type KudosEmulatorOptions,
} from '../emulator/emulator-options.js';
export type {
  EmulatorTransaction,
  PaymentOutcome,
  PaymentRequest,
  TxStatus,
} from '../emulator/model/transaction.js';
export type { EmulatorCounters } from '../emulator/state.js';
export type { WebhookDelivery, WebhookMode } from '../emulator/webhook-sender.js';
export {
  type OrderStoreContractCase,
  type OrderStoreContractOptions,
  orderStoreContract,
} from '../webhook/payments/order-store-contract.js';
export {
  type DedupeStoreContractCase,
  type DedupeStoreContractOptions,
  dedupeStoreContract,
} from '../webhook/store-contract.js';
