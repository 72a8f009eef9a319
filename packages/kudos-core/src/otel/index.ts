/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * kudos-core/otel: the OpenTelemetry bridge the Kudos packages share, written once: spans made from
 * the `node:diagnostics_channel` tracing channels, with their parents, and the metrics each package
 * hands it. Apps call `kudosOpenTelemetry()` of passport-kudos/otel (sign-in) and of
 * kudos-payments/otel (payments). Needs `@opentelemetry/api` (an optional peer).
 *
 * @packageDocumentation
 */
export {
  durationHistogram,
  instrumentOperations,
  type KudosAnyMessage,
  type KudosInstrumentation,
  type KudosInstrumentationScope,
  type KudosMetricsRecorder,
  type KudosOpenTelemetryProviders,
} from './instrument.js';
