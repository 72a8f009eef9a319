import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  context,
  type MeterProvider,
  metrics,
  type Span,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import {
  KUDOS_TRACE_CHANNELS,
  type KudosTraceMessages,
  type KudosTraceOperation,
  kudosChannel,
} from '../base/trace.js';
import { failed, spanEnd, spanStart } from './attributes.js';
import { type KudosObservedReceiver, kudosMetrics } from './metrics.js';
import { SCOPE_NAME, SCOPE_VERSION } from './scope.js';

/** Options of {@link kudosOpenTelemetry}. */
export interface KudosOpenTelemetryOptions {
  /** Where spans go; default the global one (`trace.setGlobalTracerProvider`, or the SDK's). */
  tracerProvider?: TracerProvider;
  /** Where metrics go; default the global one. */
  meterProvider?: MeterProvider;
  /**
   * Receivers whose health is observed as gauges (`kudos.payments.unprocessed`,
   * `kudos.payments.oldest_unprocessed_age`, `kudos.payments.store_up`), by name: the value of
   * `kudosWebhook()` or `kudosPayments()`, or anything with their `status()`.
   */
  receivers?: Record<string, KudosObservedReceiver>;
}

/** What {@link kudosOpenTelemetry} answers. */
export interface KudosInstrumentation {
  /** Stops recording: unsubscribes from every channel and removes the gauges' callbacks. */
  disable(): void;
}

type AnyMessage = KudosTraceMessages[KudosTraceOperation];

interface Started {
  span: Span;
  /** `performance.now()` at the start, for the duration metrics. */
  at: number;
}

/**
 * Records passport-kudos's operations as OpenTelemetry spans and metrics, by subscribing to its
 * `node:diagnostics_channel` tracing channels (docs/observability.md). A span's parent is the
 * passport-kudos operation it runs inside (the callback's token request is a child of the callback),
 * else the context active when it started (an HTTP server span of your instrumentation).
 *
 * @example
 * ```ts
 * import { kudosOpenTelemetry } from 'passport-kudos/otel';
 * import type { KudosPayments } from 'passport-kudos/webhook';
 * declare const payments: KudosPayments; // your kudosPayments()
 * const instrumentation = kudosOpenTelemetry({ receivers: { payments } }); // after the OpenTelemetry SDK is set up
 * ```
 */
export function kudosOpenTelemetry(options: KudosOpenTelemetryOptions = {}): KudosInstrumentation {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME, SCOPE_VERSION);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME, SCOPE_VERSION);
  const record = kudosMetrics(meter, options.receivers ?? {});
  // The passport-kudos operation a call runs inside: entered by each channel's start (bindStore),
  // so that what runs inside it (a token request, a store call) finds its parent there.
  const parents = new AsyncLocalStorage<Context>();
  const started = new WeakMap<object, Started>();
  const undo: Array<() => void> = [];

  const start = (message: AnyMessage): Context => {
    const parent = parents.getStore() ?? context.active();
    const { name, kind, attributes } = spanStart(message);
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    started.set(message, { span, at: performance.now() });
    return trace.setSpan(parent, span);
  };
  const end = (message: AnyMessage): void => {
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

  for (const operation of Object.keys(KUDOS_TRACE_CHANNELS) as KudosTraceOperation[]) {
    const channel = kudosChannel(operation);
    // Every traced operation returns a promise, so it ends at asyncEnd (with its outcome set).
    const subscribers = { asyncEnd: (message: AnyMessage) => end(message) };
    channel.start.bindStore(parents, (message) => start(message as AnyMessage));
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
