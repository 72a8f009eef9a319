import type { BatchObservableCallback, Meter } from '@opentelemetry/api';
import type { KudosTraceOperation } from 'kudos-core';
import { durationHistogram, type KudosAnyMessage, type KudosMetricsRecorder } from 'kudos-core/otel';

/** What the gauges read of a receiver: `kudosWebhook()` and `kudosPayments()` answer it with `status()`. */
export interface KudosObservedReceiver {
  status(): Promise<{
    unprocessed: number;
    oldestUnprocessedMs: number | null;
    exceptions?: number;
    storeOk: boolean;
  }>;
}

/** The channels of the payments' operations. */
export const PAYMENT_OPERATIONS = [
  'notification',
  'confirm',
  'store',
  'chain',
] as const satisfies readonly KudosTraceOperation[];

/** The payments' metric names (docs/observability.md lists them with their Prometheus names). */
export const KUDOS_PAYMENT_METRICS = {
  notifications: 'kudos.notifications',
  chainLookupDuration: 'kudos.chain_lookup.duration',
  unprocessed: 'kudos.payments.unprocessed',
  oldestUnprocessedAge: 'kudos.payments.oldest_unprocessed_age',
  exceptions: 'kudos.payments.exceptions',
  storeUp: 'kudos.payments.store_up',
  recoveredFromChain: 'kudos.payments.recovered_from_chain',
  chainScans: 'kudos.payments.chain_scans',
} as const;

/**
 * The counters and histograms fed by ended operations, and the gauges read from the receivers'
 * `status()` at each collection.
 */
export function paymentMetrics(
  meter: Meter,
  receivers: Record<string, KudosObservedReceiver>,
): KudosMetricsRecorder {
  const notifications = meter.createCounter(KUDOS_PAYMENT_METRICS.notifications, {
    description:
      'Payment notifications, by outcome (processed, duplicate, refused, in_progress, failed, kept) and source',
  });
  const recovered = meter.createCounter(KUDOS_PAYMENT_METRICS.recoveredFromChain, {
    description:
      'Transfers reconcileChain() found on the chain and processed that no notification had brought (notifications that stopped arriving show here)',
  });
  const chainScans = meter.createCounter(KUDOS_PAYMENT_METRICS.chainScans, {
    description: 'Runs of reconcileChain(), by outcome (complete, incomplete, busy, error)',
  });
  const chainLookup = durationHistogram(
    meter,
    KUDOS_PAYMENT_METRICS.chainLookupDuration,
    'Confirmations of notifications (the chain lookup)',
  );
  const unprocessed = meter.createObservableGauge(KUDOS_PAYMENT_METRICS.unprocessed, {
    description: 'Notifications waiting unprocessed',
  });
  const exceptions = meter.createObservableGauge(KUDOS_PAYMENT_METRICS.exceptions, {
    description: 'Payments that credit no order, not acknowledged (counted apart: anyone can pay the shop)',
  });
  const oldest = meter.createObservableGauge(KUDOS_PAYMENT_METRICS.oldestUnprocessedAge, {
    description: 'How long the oldest unprocessed notification has waited (0 when none waits)',
    unit: 's',
  });
  const storeUp = meter.createObservableGauge(KUDOS_PAYMENT_METRICS.storeUp, {
    description: "1 when the receiver's store answered, 0 when it did not",
  });
  const observe: BatchObservableCallback = async (result) => {
    await Promise.all(
      Object.entries(receivers).map(async ([name, receiver]) => {
        const attributes = { 'kudos.receiver': name };
        // status() of kudos-payments never rejects; anything else that does counts as a store down.
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

  const record = (message: KudosAnyMessage, seconds: number): void => {
    const outcome = message.outcome ?? 'error';
    switch (message.operation) {
      case 'notification':
        notifications.add(1, { 'kudos.outcome': outcome, 'kudos.source': message.source });
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
  return Object.assign(record, { disable: () => meter.removeBatchObservableCallback(observe, gauges) });
}
