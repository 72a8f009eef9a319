// The example's metrics: passport-kudos/otel records sign-ins and token durations, kudos-payments/otel
// payments, chain-lookup durations and the payments' health, into an OpenTelemetry meter, which the Prometheus exporter
// answers at /metrics (scraped by Prometheus; no server of its own).
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { kudosOpenTelemetry as paymentsOpenTelemetry } from 'kudos-payments/otel';
import { kudosOpenTelemetry } from 'passport-kudos/otel';

/**
 * @param {Record<string, import('kudos-payments/otel').KudosObservedReceiver>} receivers
 */
export function createMetrics(receivers) {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const parts = [kudosOpenTelemetry({ meterProvider }), paymentsOpenTelemetry({ meterProvider, receivers })];
  return {
    /** @type {import('express').RequestHandler} */
    handler: (req, res) => exporter.getMetricsRequestHandler(req, res),
    async close() {
      for (const part of parts) part.disable();
      await meterProvider.shutdown();
    },
  };
}
