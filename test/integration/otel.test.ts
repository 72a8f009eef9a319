import { readFileSync } from 'node:fs';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { KudosEmulator } from 'kudos-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KudosInstrumentation } from '../../packages/kudos-core/src/otel/index.js';
import { cosmosConfirmer, kudosWebhook, MemoryDedupeStore } from '../../packages/kudos-payments/src/index.js';
import {
  type KudosOpenTelemetryOptions,
  kudosOpenTelemetry as paymentsOpenTelemetry,
} from '../../packages/kudos-payments/src/otel/index.js';
import { kudosOpenTelemetry as signInOpenTelemetry } from '../../src/otel/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { PAYMENT_USERS, passAuthorization } from '../helpers/emulator-user.js';
import { startApp, type TestApp } from '../helpers/express-app.js';
import type { Listening } from '../helpers/listen.js';
import { listenShop, startPaymentsEmulator } from '../helpers/observed-shop.js';

// passport-kudos/otel with the real OpenTelemetry SDK: in-memory span exporter, a metric reader
// collected by the test; the emulator, a real Express app and the emulator's real sender.

const CLIENT = {
  clientID: 'app',
  clientSecret: 'otel-client-secret',
  name: 'App',
  redirectURIs: ['http://127.0.0.1/callback'],
};
const WEBHOOK_SECRET = 'otel-webhook-secret-0123456789';

/** A reader the test collects from when it wants (what a Prometheus scrape does). */
class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** The data points of one metric, by name. */
function points(metrics: ResourceMetrics, name: string): Array<DataPoint<unknown>> {
  return metrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name)
    .flatMap((metric) => metric.dataPoints as Array<DataPoint<unknown>>);
}

/** Both packages' instrumentations, as an app with sign-in and payments sets them up. */
function kudosOpenTelemetry(options: KudosOpenTelemetryOptions): KudosInstrumentation {
  const parts = [signInOpenTelemetry(options), paymentsOpenTelemetry(options)];
  return {
    disable() {
      for (const part of parts) part.disable();
    },
  };
}

describe('passport-kudos/otel and kudos-payments/otel with the OpenTelemetry SDK', () => {
  let spans: InMemorySpanExporter;
  let tracerProvider: BasicTracerProvider;
  let reader: TestReader;
  let meterProvider: MeterProvider;
  let instrumentation: KudosInstrumentation | undefined;
  let kudos: KudosEmulator;
  let app: TestApp | undefined;
  let shop: Listening | undefined;

  beforeEach(async () => {
    spans = new InMemorySpanExporter();
    tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    reader = new TestReader();
    meterProvider = new MeterProvider({ readers: [reader] });
    kudos = await startPaymentsEmulator({ clients: [CLIENT] });
  });
  afterEach(async () => {
    instrumentation?.disable();
    await app?.close();
    await shop?.close();
    await kudos.close();
    await meterProvider.shutdown();
    await tracerProvider.shutdown();
  });

  async function signIn(decision: 'accept' | 'decline' = 'accept'): Promise<void> {
    const browser = new CookieClient();
    const start = locationOf(await browser.get(`${app?.url}/login`));
    // bobby declines (alice has accepted before: the service asks her no more).
    const user = decision === 'accept' ? PAYMENT_USERS[0] : PAYMENT_USERS[1];
    const back = await passAuthorization(browser, start, {
      decision,
      username: user?.id,
      password: user?.password,
    });
    await browser.get(locationOf(back));
  }

  /** The sign-in app (Express 5) with the client's secret, or another one. */
  function startShopApp(clientSecret = CLIENT.clientSecret): Promise<TestApp> {
    return startApp('express5', {
      strategy: { clientID: 'app', clientSecret, authURL: kudos.authURL, baseURL: kudos.baseURL },
    });
  }

  async function waitFor(check: () => boolean): Promise<void> {
    for (let i = 0; i < 6000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it('a sign-in is a trace: the token request (HTTP client conventions) is a child of the callback span', async () => {
    instrumentation = kudosOpenTelemetry({ tracerProvider, meterProvider });
    app = await startShopApp();
    await signIn();
    await signIn('decline');
    await waitFor(() => spans.getFinishedSpans().filter((s) => s.name === 'kudos.callback').length === 2);
    const finished = spans.getFinishedSpans();
    const [callback, declined] = finished.filter((s) => s.name === 'kudos.callback') as [
      ReadableSpan,
      ReadableSpan,
    ];
    const token = finished.find((s) => s.attributes['kudos.operation'] === 'token') as ReadableSpan;
    expect(token.name).toBe('POST');
    expect(token.kind).toBe(SpanKind.CLIENT);
    expect(token.parentSpanContext?.spanId).toBe(callback.spanContext().spanId);
    expect(token.spanContext().traceId).toBe(callback.spanContext().traceId);
    const tokenURL = new URL(kudos.tokenURL);
    expect(token.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.full': kudos.tokenURL,
      'server.address': tokenURL.hostname,
      'server.port': Number(tokenURL.port),
      'http.response.status_code': 200,
      'kudos.outcome': 'success',
    });
    expect(callback.attributes).toMatchObject({ 'kudos.operation': 'callback', 'kudos.outcome': 'success' });
    expect(callback.status.code).toBe(SpanStatusCode.UNSET);
    expect(declined.attributes['kudos.outcome']).toBe('denied');
    // The authorize span is a trace of its own (another request), never the parent of the callback.
    const authorize = finished.filter((s) => s.name === 'kudos.authorize');
    expect(authorize).toHaveLength(2);
    expect(callback.parentSpanContext).toBeUndefined();

    const { resourceMetrics } = await reader.collect();
    const signins = points(resourceMetrics, 'kudos.signins').map((p) => [
      p.attributes['kudos.outcome'],
      p.value,
    ]);
    expect(signins).toEqual(
      expect.arrayContaining([
        ['success', 1],
        ['denied', 1],
      ]),
    );
    const durations = points(resourceMetrics, 'kudos.token.duration');
    expect(durations).toHaveLength(1);
    const [duration] = durations as [DataPoint<unknown>];
    expect(duration.attributes).toEqual({ 'kudos.operation': 'token', 'kudos.outcome': 'success' });
    expect((duration.value as Histogram).count).toBe(1);
    expect((duration.value as Histogram).sum).toBeGreaterThan(0);

    // Spans and meters carry the package's name and version (the version package.json sets).
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const span of finished) {
      expect(span.instrumentationScope).toMatchObject({ name: 'passport-kudos', version });
    }
    const scopes = resourceMetrics.scopeMetrics.map((m) => m.scope);
    expect(scopes).toEqual([expect.objectContaining({ name: 'passport-kudos', version })]);
  });

  it('a wrong client secret: the token span and the callback span end in error with the service’s code', async () => {
    instrumentation = kudosOpenTelemetry({ tracerProvider, meterProvider });
    app = await startShopApp('wrong');
    await signIn();
    await waitFor(() => spans.getFinishedSpans().some((s) => s.name === 'kudos.callback'));
    const finished = spans.getFinishedSpans();
    const token = finished.find((s) => s.attributes['kudos.operation'] === 'token') as ReadableSpan;
    const callback = finished.find((s) => s.name === 'kudos.callback') as ReadableSpan;
    expect(token.status).toEqual({ code: SpanStatusCode.ERROR, message: 'INVALID_CLIENT_CRED' });
    expect(token.attributes).toMatchObject({
      'http.response.status_code': 400,
      'error.type': 'INVALID_CLIENT_CRED',
    });
    expect(callback.attributes['kudos.outcome']).toBe('token_error');
    expect(callback.status.code).toBe(SpanStatusCode.ERROR);
    const { resourceMetrics } = await reader.collect();
    expect(
      points(resourceMetrics, 'kudos.signins').map((p) => [p.attributes['kudos.outcome'], p.value]),
    ).toEqual([['token_error', 1]]);
  });

  it('payments: notification spans with their confirmation and store calls as children; counters, the chain-lookup histogram and the gauges', async () => {
    let failing = true;
    const hook = kudosWebhook({
      secret: WEBHOOK_SECRET,
      store: new MemoryDedupeStore(),
      confirm: cosmosConfirmer({ baseURL: kudos.baseURL, wallet: kudos.walletOf('bobby') }),
      onNotification: () => {
        if (failing) throw new Error('the shop database is down');
      },
    });
    instrumentation = kudosOpenTelemetry({ tracerProvider, meterProvider, receivers: { shop: hook } });
    shop = await listenShop(kudos, hook, WEBHOOK_SECRET);
    const failed = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    failing = false;
    const paid = kudos.pay({ from: 'alice', to: 'bobby', amount: '3', via: 'shop-agent' });
    await kudos.idle();
    await waitFor(() => spans.getFinishedSpans().filter((s) => s.name === 'kudos.notification').length === 2);

    const finished = spans.getFinishedSpans();
    const notifications = finished.filter((s) => s.name === 'kudos.notification');
    const [kept, processed] = notifications as [ReadableSpan, ReadableSpan];
    expect(kept.attributes).toMatchObject({
      'kudos.source': 'notification',
      'kudos.tx_hash': failed.txHash,
      'kudos.outcome': 'kept',
      'kudos.kept': true,
      'kudos.error_code': 'handler_failed',
      'http.response.status_code': 500,
    });
    expect(kept.status.code).toBe(SpanStatusCode.ERROR);
    expect(processed.attributes).toMatchObject({
      'kudos.tx_hash': paid.txHash,
      'kudos.outcome': 'processed',
      'kudos.paid': true,
      'kudos.received': '3000000000',
    });
    // The payments' spans carry kudos-payments' scope and version (the version its package.json sets).
    const payments = JSON.parse(readFileSync('packages/kudos-payments/package.json', 'utf8')) as {
      version: string;
    };
    for (const span of notifications)
      expect(span.instrumentationScope).toMatchObject({ name: 'kudos-payments', version: payments.version });
    const children = finished.filter((s) => s.parentSpanContext?.spanId === processed.spanContext().spanId);
    expect(children.map((s) => s.name).sort()).toEqual([
      'kudos.confirm',
      'kudos.store.claim',
      'kudos.store.complete',
    ]);
    expect(children.find((s) => s.name === 'kudos.store.claim')?.attributes).toMatchObject({
      'kudos.store': 'MemoryDedupeStore',
      'kudos.store.answer': 'claimed',
      'kudos.key': `${paid.txHash}:success`,
    });

    await new Promise((resolve) => setTimeout(resolve, 20)); // the kept one has waited a while
    const { resourceMetrics } = await reader.collect();
    expect(
      points(resourceMetrics, 'kudos.notifications').map((p) => [p.attributes['kudos.outcome'], p.value]),
    ).toEqual(
      expect.arrayContaining([
        ['kept', 1],
        ['processed', 1],
      ]),
    );
    const lookups = points(resourceMetrics, 'kudos.chain_lookup.duration');
    expect(lookups.map((p) => [p.attributes['kudos.outcome'], (p.value as Histogram).count])).toEqual([
      ['confirmed', 2],
    ]);
    expect(points(resourceMetrics, 'kudos.payments.unprocessed')).toEqual([
      expect.objectContaining({ attributes: { 'kudos.receiver': 'shop' }, value: 1 }),
    ]);
    const age = points(resourceMetrics, 'kudos.payments.oldest_unprocessed_age')[0]?.value as number;
    expect(age).toBeGreaterThan(0.01);
    expect(age).toBeLessThan(60);
    expect(points(resourceMetrics, 'kudos.payments.store_up')[0]?.value).toBe(1);

    // redrive() empties it: the gauge follows.
    expect(await hook.redrive()).toMatchObject({ processed: 1 });
    const after = await reader.collect();
    expect(points(after.resourceMetrics, 'kudos.payments.unprocessed')[0]?.value).toBe(0);
    expect(points(after.resourceMetrics, 'kudos.payments.oldest_unprocessed_age')[0]?.value).toBe(0);
  });

  it('disable() stops recording: no span or metric for what happens after', async () => {
    instrumentation = kudosOpenTelemetry({ tracerProvider, meterProvider });
    instrumentation.disable();
    instrumentation = undefined;
    app = await startShopApp();
    await signIn();
    expect(spans.getFinishedSpans()).toEqual([]);
    const { resourceMetrics } = await reader.collect();
    expect(points(resourceMetrics, 'kudos.signins')).toEqual([]);
  });
});
