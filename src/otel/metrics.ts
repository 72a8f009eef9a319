import type { BatchObservableCallback, Meter } from '@opentelemetry/api';
import type { KudosTraceMessages, KudosTraceOperation } from '../base/trace.js';

/** What the gauges read of a receiver: `kudosWebhook()` and `kudosPayments()` answer it with `status()`. */
export interface KudosObservedReceiver {
  status(): Promise<{
    unprocessed: number;
    oldestUnprocessedMs: number | null;
    exceptions?: number;
    storeOk: boolean;
  }>;
}

type AnyMessage = KudosTraceMessages[KudosTraceOperation];

/** The metrics' names (docs/observability.md lists them with their Prometheus names). */
export const KUDOS_METRICS = {
  signins: 'kudos.signins',
  notifications: 'kudos.notifications',
  tokenDuration: 'kudos.token.duration',
  apiDuration: 'kudos.api.duration',
  chainLookupDuration: 'kudos.chain_lookup.duration',
  unprocessed: 'kudos.payments.unprocessed',
  oldestUnprocessedAge: 'kudos.payments.oldest_unprocessed_age',
  exceptions: 'kudos.payments.exceptions',
  storeUp: 'kudos.payments.store_up',
  recoveredFromChain: 'kudos.payments.recovered_from_chain',
  chainScans: 'kudos.payments.chain_scans',
} as const;

/**
 * Histogram buckets in seconds, those the OpenTelemetry semantic conventions give for HTTP client
 * durations (the SDK's default buckets are for milliseconds).
 */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Records an ended operation in the metrics; `disable()` removes the gauges' callback. */
interface MetricsRecorder {
  (message: AnyMessage, seconds: number): void;
  disable(): void;
}

/**
 * The counters and histograms fed by ended operations, and the gauges read from the receivers'
 * `status()` at each collection.
 */
export function kudosMetrics(
  meter: Meter,
  receivers: Record<string, KudosObservedReceiver>,
): MetricsRecorder {
  const signins = meter.createCounter(KUDOS_METRICS.signins, {
    description:
      'Sign-in callbacks, by outcome (success, denied, state_mismatch, failure, token_error, error)',
  });
  const notifications = meter.createCounter(KUDOS_METRICS.notifications, {
    description:
      'Payment notifications, by outcome (processed, duplicate, refused, in_progress, failed, kept) and source',
  });
  const recovered = meter.createCounter(KUDOS_METRICS.recoveredFromChain, {
    description:
      'Transfers reconcileChain() found on the chain and processed that no notification had brought (notifications that stopped arriving show here)',
  });
  const chainScans = meter.createCounter(KUDOS_METRICS.chainScans, {
    description: 'Runs of reconcileChain(), by outcome (complete, incomplete, busy, error)',
  });
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: SECONDS } });
  const tokenDuration = seconds(
    KUDOS_METRICS.tokenDuration,
    'Requests to the token endpoint (token, refresh, revoke)',
  );
  const apiDuration = seconds(KUDOS_METRICS.apiDuration, 'Calls of the API client');
  const chainLookup = seconds(
    KUDOS_METRICS.chainLookupDuration,
    'Confirmations of notifications (the chain lookup)',
  );
  const unprocessed = meter.createObservableGauge(KUDOS_METRICS.unprocessed, {
    description: 'Notifications waiting unprocessed',
  });
  const exceptions = meter.createObservableGauge(KUDOS_METRICS.exceptions, {
    description: 'Payments that credit no order, not acknowledged (counted apart: anyone can pay the shop)',
  });
  const oldest = meter.createObservableGauge(KUDOS_METRICS.oldestUnprocessedAge, {
    description: 'How long the oldest unprocessed notification has waited (0 when none waits)',
    unit: 's',
  });
  const storeUp = meter.createObservableGauge(KUDOS_METRICS.storeUp, {
    description: "1 when the receiver's store answered, 0 when it did not",
  });
  const observe: BatchObservableCallback = async (result) => {
    await Promise.all(
      Object.entries(receivers).map(async ([name, receiver]) => {
        const attributes = { 'kudos.receiver': name };
        // status() of passport-kudos never rejects; anything else that does counts as a store down.
        const status = await receiver.status().catch(() => undefined);
        result.observe(storeUp, status?.storeOk ? 1 : 0, attributes);
        if (!status?.storeOk) return; // its counts are unknown, not zero
        result.observe(unprocessed, status.unprocessed, attributes);
        result.observe(oldest, (status.oldestUnprocessedMs ?? 0) / 1000, attributes);
        result.observe(exceptions, status.exceptions ?? 0, attributes);
      }),
    );
  };
  const gauges = [unprocessed, oldest, exceptions, storeUp];
  meter.addBatchObservableCallback(observe, gauges);

  const record = (message: AnyMessage, seconds: number): void => {
    const outcome = message.outcome ?? 'error';
    switch (message.operation) {
      case 'callback':
        signins.add(1, { 'kudos.outcome': outcome });
        break;
      case 'notification':
        notifications.add(1, { 'kudos.outcome': outcome, 'kudos.source': message.source });
        break;
      case 'token':
      case 'refresh':
      case 'revoke':
        tokenDuration.record(seconds, { 'kudos.operation': message.operation, 'kudos.outcome': outcome });
        break;
      case 'api':
        apiDuration.record(seconds, { 'http.request.method': message.method, 'kudos.outcome': outcome });
        break;
      case 'confirm':
        chainLookup.record(seconds, { 'kudos.outcome': outcome });
        break;
      case 'chain':
        chainScans.add(1, { 'kudos.outcome': outcome });
        if (message.recovered) recovered.add(message.recovered);
        break;
    }
  };
  return Object.assign(record, {
    disable: () => meter.removeBatchObservableCallback(observe, gauges),
  });
}
