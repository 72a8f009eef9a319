/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * kudos-payments: receive Kudos payment notifications (docs/kudos-service.md#notifications) safely: typed,
 * verified as far as they can be, and processed once.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { cosmosConfirmer, kudosWebhook } from 'kudos-payments';
 * const app = express();
 * const confirm = cosmosConfirmer({ restURL: 'https://chain.example/lcd', wallet: 'kudos10w0466xcvg0sgfhynvj5nlcdzhqzrnc4gkegml' });
 * app.post('/webhooks/kudos', kudosWebhook({ secret: 'at-least-16-characters', confirm, onNotification: (n) => console.log(n.tx.txHash) }));
 * ```
 *
 * @packageDocumentation
 */

// The parsed shapes a handler gets; the shapes as the service sends them, and its statuses
// (`KudosRawTx`, `KudosTxStatus`, `TX_STATUSES`, ...), are kudos-core/chain's.
// The one error hierarchy, the code table and the tracing channels: kudos-core's, the same classes
// passport-kudos exports, so `instanceof KudosError` holds whichever package an app imported it from.
export {
  isCodeOf,
  KUDOS_ERROR_CODES,
  KUDOS_TRACE_CHANNELS,
  KudosError,
  type KudosErrorClassName,
  type KudosErrorCode,
  type KudosErrorCodeInfo,
  type KudosErrorCodeOf,
  type KudosErrorOptions,
  type KudosTraceMessages,
  type KudosTraceOperation,
} from 'kudos-core';
export type { KudosAmount, KudosOutput, KudosTransaction } from 'kudos-core/chain';
export { type KudosWebhookFetchHandler, kudosWebhookFetch } from './adapters/fetch.js';
export {
  type KudosWebhookErrorHandler,
  type KudosWebhookHandler,
  kudosWebhook,
} from './adapters/node.js';
export type { WebhookRequest } from './core/body.js';
export {
  type CosmosConfirmerOptions,
  cosmosConfirmer,
  type KudosConfirmer,
} from './core/confirm.js';
export type {
  KudosClaimContext,
  KudosClaimResult,
  KudosDedupeStore,
  KudosKeptNotification,
  KudosUnprocessedNotification,
  KudosUnreadableKept,
} from './core/dedupe.js';
export {
  KudosNotificationError,
  type KudosNotificationErrorCode,
  type KudosNotificationErrorOptions,
  type KudosRefusal,
  type KudosStoreUnavailable,
} from './core/errors.js';
export { parseKudosNotification } from './core/parse.js';
export type { KudosNotificationHandler } from './core/pipeline.js';
export { classifyStatusChange, type KudosStatusChange } from './core/progression.js';
export type * from './core/types.js';
export type { KudosReceiverOptions } from './options.js';
export { MemoryOrderStore, type MemoryOrderStoreOptions } from './payments/memory-order-store.js';
export type {
  KudosOrderStore,
  KudosOrderStoreChange,
  KudosOrderStoreRecord,
} from './payments/order-store.js';
export {
  type KudosOrderInput,
  type KudosOrderLink,
  type KudosPaidOrder,
  type KudosPaymentCheck,
  type KudosPaymentException,
  type KudosPayments,
  type KudosPaymentsOptions,
  type KudosPaymentsReconcileChain,
  kudosPayments,
} from './payments/payments.js';
export type {
  KudosOrder,
  KudosOrderPayment,
  KudosOrderStatus,
  KudosPaymentOutcome,
  KudosPaymentProblem,
} from './payments/records.js';
export {
  type KudosDelivery,
  type KudosHeaders,
  type KudosReceiver,
  type KudosReceiverAnswer,
  type KudosReceiverAnswerBody,
  kudosReceiver,
} from './receiver.js';
export type { KudosReconcileResult } from './recovery/reconcile.js';
export type { KudosReconcileChain } from './recovery/reconcile-chain.js';
export type { KudosRedriveResult } from './recovery/recovery.js';
export type { KudosReceiverStatus } from './recovery/status.js';
export { MemoryDedupeStore, type MemoryDedupeStoreOptions } from './stores/memory/memory-dedupe-store.js';
