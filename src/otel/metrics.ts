import type { Meter } from '@opentelemetry/api';
import type { KudosTraceOperation } from 'kudos-core';
import { durationHistogram, type KudosAnyMessage, type KudosMetricsRecorder } from 'kudos-core/otel';

/** The channels of the sign-in's operations. */
export const SIGN_IN_OPERATIONS = [
  'authorize',
  'callback',
  'token',
  'refresh',
  'revoke',
  'api',
] as const satisfies readonly KudosTraceOperation[];

/** The sign-in's metric names (docs/observability.md lists them with their Prometheus names). */
export const KUDOS_SIGN_IN_METRICS = {
  signins: 'kudos.signins',
  tokenDuration: 'kudos.token.duration',
  apiDuration: 'kudos.api.duration',
} as const;

/** The counter of sign-ins and the durations of token requests and API calls. */
export function signInMetrics(meter: Meter): KudosMetricsRecorder {
  const signins = meter.createCounter(KUDOS_SIGN_IN_METRICS.signins, {
    description:
      'Sign-in callbacks, by outcome (success, denied, state_mismatch, failure, token_error, error)',
  });
  const tokenDuration = durationHistogram(
    meter,
    KUDOS_SIGN_IN_METRICS.tokenDuration,
    'Requests to the token endpoint (token, refresh, revoke)',
  );
  const apiDuration = durationHistogram(meter, KUDOS_SIGN_IN_METRICS.apiDuration, 'Calls of the API client');
  const record = (message: KudosAnyMessage, duration: number): void => {
    const outcome = message.outcome ?? 'error';
    switch (message.operation) {
      case 'callback':
        signins.add(1, { 'kudos.outcome': outcome });
        break;
      case 'token':
      case 'refresh':
      case 'revoke':
        tokenDuration.record(duration, { 'kudos.operation': message.operation, 'kudos.outcome': outcome });
        break;
      case 'api':
        apiDuration.record(duration, { 'http.request.method': message.method, 'kudos.outcome': outcome });
        break;
    }
  };
  // Nothing observed at collection: nothing to remove.
  return Object.assign(record, { disable: () => undefined });
}
