// The example's metrics: passport-kudos/otel records sign-ins, payments, token and chain-lookup
// durations and the payments' health into an OpenTelemetry meter, which the Prometheus exporter
// answers at /metrics (scraped by Prometheus; no server of its own).
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { kudosOpenTelemetry } from 'passport-kudos/otel';

/**
 * @param {Record<string, import('passport-kudos/otel').KudosObservedReceiver>} receivers
 */
export function createMetrics(receivers) {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const instrumentation = kudosOpenTelemetry({ meterProvider, receivers });
  return {
    /** @type {import('express').RequestHandler} */
    handler: (req, res) => exporter.getMetricsRequestHandler(req, res),
    async close() {
      instrumentation.disable();
      await meterProvider.shutdown();
    },
  };
}
