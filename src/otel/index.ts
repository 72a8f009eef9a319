/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * passport-kudos/otel: OpenTelemetry spans and metrics of the sign-in's operations (the start, the
 * callback, token requests, refresh, revocation, API calls), from its `node:diagnostics_channel`
 * tracing channels. Needs `@opentelemetry/api` (an optional peer). The payments' are
 * kudos-payments/otel.
 * @see docs/observability.md
 */
import {
  instrumentOperations,
  type KudosInstrumentation,
  type KudosOpenTelemetryProviders,
} from 'kudos-core/otel';
import { SIGN_IN_OPERATIONS, signInMetrics } from './metrics.js';

export type {
  KudosApiCallMessage,
  KudosAuthorizeMessage,
  KudosCallbackMessage,
  KudosTokenRequestMessage,
} from 'kudos-core';
export type { KudosInstrumentation } from 'kudos-core/otel';
export { KUDOS_SIGN_IN_METRICS } from './metrics.js';

/** Options of {@link kudosOpenTelemetry}: where spans and metrics go (the global providers by default). */
export type KudosOpenTelemetryOptions = KudosOpenTelemetryProviders;

/**
 * Records the sign-in's operations as OpenTelemetry spans and metrics (docs/observability.md). A
 * span's parent is the operation it runs inside (the callback's token request is a child of the
 * callback), else the context active when it started (an HTTP server span of your instrumentation).
 *
 * @example
 * ```ts
 * import { kudosOpenTelemetry } from 'passport-kudos/otel';
 * const instrumentation = kudosOpenTelemetry(); // after the OpenTelemetry SDK is set up
 * ```
 */
export function kudosOpenTelemetry(options: KudosOpenTelemetryOptions = {}): KudosInstrumentation {
  return instrumentOperations(
    { name: 'passport-kudos', version: '0.1.0', operations: SIGN_IN_OPERATIONS, metrics: signInMetrics },
    options,
  );
}
