/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7).
/**
 * kudos-emulator: a local Kudos service for development and tests of apps that use passport-kudos.
 *
 * @example
 * ```ts
 * import { startKudosEmulator } from 'kudos-emulator';
 * const kudos = await startKudosEmulator({ port: 0 });
 * // new KudosStrategy({ authURL: kudos.authURL, baseURL: kudos.baseURL, ... })
 * await kudos.close();
 * ```
 *
 * @packageDocumentation
 */

export {
  type AuthorizeArguments,
  type KudosEmulator,
  type PayArguments,
  startKudosEmulator,
} from './emulator.js';
export {
  type CodeParam,
  DEMO_CLIENT,
  DEMO_USERS,
  type EmulatorAgent,
  type EmulatorClient,
  type EmulatorGeneration,
  type EmulatorUser,
  type KudosEmulatorOptions,
} from './emulator-options.js';
export type { EmulatorCounters } from './state.js';
export type { EmulatorTransaction, FinalTxStatus, PaymentRequest } from './transaction.js';
export type { WebhookDelivery, WebhookMode } from './webhook-sender.js';
