// What a bench app subscribes to passport-kudos's tracing channels, by SUBSCRIBE: nothing (unset),
// `channels` (a subscriber of every channel that counts the ended operations: the least an APM agent
// does), or `otel` (passport-kudos/otel with the OpenTelemetry SDK: spans to a processor that drops
// them, metrics to a reader nobody collects).
import { tracingChannel } from 'node:diagnostics_channel';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { KUDOS_TRACE_CHANNELS } from 'passport-kudos';
import { kudosOpenTelemetry } from 'passport-kudos/otel';

/** A reader that is never collected: the metrics are recorded, not exported. */
class IdleReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

let ended = 0;
if (process.env.SUBSCRIBE === 'channels') {
  for (const name of Object.values(KUDOS_TRACE_CHANNELS)) {
    tracingChannel(name).subscribe({
      asyncEnd: () => {
        ended++;
      },
    });
  }
}
if (process.env.SUBSCRIBE === 'otel') {
  kudosOpenTelemetry({
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] }),
    meterProvider: new MeterProvider({ readers: [new IdleReader()] }),
  });
}

/** Operations the `channels` subscriber saw end. */
export const endedOperations = () => ended;
