/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * kudos-payments/otel: OpenTelemetry spans and metrics of the payments' operations (notifications,
 * the chain lookup, the store, the chain reconcile) and the receivers' health as gauges, from their
 * `node:diagnostics_channel` tracing channels. Needs `@opentelemetry/api` (an optional peer). The
 * sign-in's are passport-kudos/otel.
 * @see docs/observability.md
 */
import {
  instrumentOperations,
  type KudosInstrumentation,
  type KudosOpenTelemetryProviders,
} from 'kudos-core/otel';
import { type KudosObservedReceiver, PAYMENT_OPERATIONS, paymentMetrics } from './metrics.js';

export type {
  KudosChainScanMessage,
  KudosConfirmMessage,
  KudosNotificationMessage,
  KudosNotificationPath,
  KudosStoreMessage,
  KudosStoreMethod,
} from 'kudos-core';
export type { KudosInstrumentation } from 'kudos-core/otel';
export { KUDOS_PAYMENT_METRICS, type KudosObservedReceiver } from './metrics.js';

/** Options of {@link kudosOpenTelemetry}. */
export interface KudosOpenTelemetryOptions extends KudosOpenTelemetryProviders {
  /**
   * Receivers whose health is observed as gauges (`kudos.payments.unprocessed`,
   * `kudos.payments.oldest_unprocessed_age`, `kudos.payments.store_up`), by name: the value of
   * `kudosWebhook()` or `kudosPayments()`, or anything with their `status()`.
   */
  receivers?: Record<string, KudosObservedReceiver>;
}

/**
 * Records the payments' operations as OpenTelemetry spans and metrics (docs/observability.md). A
 * span's parent is the operation it runs inside (a store call is a child of its notification), else
 * the context active when it started (an HTTP server span of your instrumentation).
 *
 * @example
 * ```ts
 * import type { KudosPayments } from 'kudos-payments';
 * import { kudosOpenTelemetry } from 'kudos-payments/otel';
 * declare const payments: KudosPayments; // your kudosPayments()
 * const instrumentation = kudosOpenTelemetry({ receivers: { payments } }); // after the OpenTelemetry SDK is set up
 * ```
 */
export function kudosOpenTelemetry(options: KudosOpenTelemetryOptions = {}): KudosInstrumentation {
  const receivers = options.receivers ?? {};
  return instrumentOperations(
    {
      name: 'kudos-payments',
      version: '0.1.0',
      operations: PAYMENT_OPERATIONS,
      metrics: (meter) => paymentMetrics(meter, receivers),
    },
    options,
  );
}
