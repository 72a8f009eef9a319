import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  context,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type Span,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { type KudosTraceMessages, type KudosTraceOperation, kudosChannel } from '../base/trace.js';
import { failed, spanEnd, spanStart } from './attributes.js';

/** Where the spans and metrics go: what `kudosOpenTelemetry()` of passport-kudos and of kudos-payments take. */
export interface KudosOpenTelemetryProviders {
  /** Where spans go; default the global one (`trace.setGlobalTracerProvider`, or the SDK's). */
  tracerProvider?: TracerProvider;
  /** Where metrics go; default the global one. */
  meterProvider?: MeterProvider;
}

/** What an instrumentation answers. */
export interface KudosInstrumentation {
  /** Stops recording: unsubscribes from every channel and removes the gauges' callbacks. */
  disable(): void;
}

/** A channel's message, whichever operation. */
export type KudosAnyMessage = KudosTraceMessages[KudosTraceOperation];

/** Records an ended operation in the metrics; `disable()` removes the gauges' callbacks. */
export interface KudosMetricsRecorder {
  (message: KudosAnyMessage, seconds: number): void;
  disable(): void;
}

/** Which package records: the instrumentation scope every span and instrument carries. */
export interface KudosInstrumentationScope {
  name: string;
  version: string;
  /** The channels this package's operations publish on. */
  operations: readonly KudosTraceOperation[];
  /** The package's counters, histograms and gauges, made on the meter. */
  metrics(meter: Meter): KudosMetricsRecorder;
}

/**
 * Histogram buckets in seconds, those the OpenTelemetry semantic conventions give for HTTP client
 * durations (the SDK's default buckets are for milliseconds).
 */
const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** A histogram of durations in seconds, in the buckets of {@link DURATION_BUCKETS_S}: every package's. */
export function durationHistogram(meter: Meter, name: string, description: string): Histogram {
  return meter.createHistogram(name, {
    description,
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
  });
}

interface Started {
  span: Span;
  /** `performance.now()` at the start, for the duration metrics. */
  at: number;
}

/**
 * Records one package's operations as OpenTelemetry spans and metrics, by subscribing to its
 * `node:diagnostics_channel` tracing channels. A span's parent is the Kudos operation it runs inside
 * (the callback's token request is a child of the callback), else the context active when it started
 * (an HTTP server span of your instrumentation). Written once for the packages that use it.
 */
export function instrumentOperations(
  scope: KudosInstrumentationScope,
  options: KudosOpenTelemetryProviders,
): KudosInstrumentation {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(scope.name, scope.version);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(scope.name, scope.version);
  const record = scope.metrics(meter);
  // The operation a call runs inside: entered by each channel's start (bindStore), so that what runs
  // inside it (a token request, a store call) finds its parent there.
  const parents = new AsyncLocalStorage<Context>();
  const started = new WeakMap<object, Started>();
  const undo: Array<() => void> = [];

  const start = (message: KudosAnyMessage): Context => {
    const parent = parents.getStore() ?? context.active();
    const { name, kind, attributes } = spanStart(message);
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    started.set(message, { span, at: performance.now() });
    return trace.setSpan(parent, span);
  };
  const end = (message: KudosAnyMessage): void => {
    const entry = started.get(message);
    if (!entry) return;
    started.delete(message);
    const seconds = (performance.now() - entry.at) / 1000;
    entry.span.setAttributes(spanEnd(message));
    if (failed(message))
      entry.span.setStatus({
        code: SpanStatusCode.ERROR,
        message: message.code ?? message.outcome ?? 'error',
      });
    entry.span.end();
    record(message, seconds);
  };

  for (const operation of scope.operations) {
    const channel = kudosChannel(operation);
    // Every traced operation returns a promise, so it ends at asyncEnd (with its outcome set).
    const subscribers = { asyncEnd: (message: KudosAnyMessage) => end(message) };
    channel.start.bindStore(parents, (message) => start(message as KudosAnyMessage));
    channel.subscribe(subscribers as never);
    undo.push(() => {
      channel.unsubscribe(subscribers as never);
      channel.start.unbindStore(parents);
    });
  }
  return {
    disable() {
      for (const step of undo.splice(0)) step();
      record.disable();
    },
  };
}
