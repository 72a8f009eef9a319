/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * passport-kudos/otel: OpenTelemetry spans and metrics of passport-kudos's operations, from its
 * `node:diagnostics_channel` tracing channels. Needs `@opentelemetry/api` (an optional peer).
 * @see docs/observability.md
 */
export {
  KUDOS_TRACE_CHANNELS,
  type KudosApiCallMessage,
  type KudosAuthorizeMessage,
  type KudosCallbackMessage,
  type KudosConfirmMessage,
  type KudosNotificationMessage,
  type KudosNotificationPath,
  type KudosStoreMessage,
  type KudosStoreMethod,
  type KudosTokenRequestMessage,
  type KudosTraceMessages,
  type KudosTraceOperation,
} from '../base/trace.js';
export {
  type KudosInstrumentation,
  type KudosOpenTelemetryOptions,
  kudosOpenTelemetry,
} from './instrument.js';
export { KUDOS_METRICS, type KudosReceiverStatus } from './metrics.js';
