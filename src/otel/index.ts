/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * passport-kudos/otel: OpenTelemetry spans and metrics of passport-kudos's operations, from its
 * `node:diagnostics_channel` tracing channels. Needs `@opentelemetry/api` (an optional peer).
 * @see docs/observability.md
 */
// The channels' names and the map of their messages are the root entry's (KUDOS_TRACE_CHANNELS,
// KudosTraceMessages, KudosTraceOperation): one entry point per name.
export type {
  KudosApiCallMessage,
  KudosAuthorizeMessage,
  KudosCallbackMessage,
  KudosConfirmMessage,
  KudosNotificationMessage,
  KudosNotificationPath,
  KudosStoreMessage,
  KudosStoreMethod,
  KudosTokenRequestMessage,
} from '../base/trace.js';
export {
  type KudosInstrumentation,
  type KudosOpenTelemetryOptions,
  kudosOpenTelemetry,
} from './instrument.js';
export { KUDOS_METRICS, type KudosObservedReceiver } from './metrics.js';
