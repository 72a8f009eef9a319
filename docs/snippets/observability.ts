// passport-kudos/otel and kudos-payments/otel with the OpenTelemetry SDK: spans on the console (your exporter in production:
// OTLP, Jaeger...), metrics for Prometheus at /metrics, and the health answer at /healthz.
import { randomBytes } from 'node:crypto';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import express from 'express';
import session from 'express-session';
import { kudosWebhook } from 'kudos-payments';
import { kudosOpenTelemetry as paymentsOpenTelemetry } from 'kudos-payments/otel';
import passport from 'passport';
import { KudosStrategy } from 'passport-kudos';
import { kudosOpenTelemetry } from 'passport-kudos/otel';

// 1. The SDK first: where spans and metrics go.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] }),
);
const prometheus = new PrometheusExporter({ preventServerStart: true });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [prometheus] }));

// 2. The app, as usual: sign-in with Kudos and a payment receiver.
passport.use(
  new KudosStrategy(
    {
      clientID: process.env.KUDOS_CLIENT_ID ?? 'kudos-demo-client',
      clientSecret: process.env.KUDOS_CLIENT_SECRET ?? 'kudos-demo-secret',
      callbackURL: '/auth/kudos/callback',
      authURL: process.env.KUDOS_AUTH_URL ?? 'http://127.0.0.1:4000',
      baseURL: process.env.KUDOS_BASE_URL ?? 'http://127.0.0.1:4000/api',
    },
    (_accessToken, _refreshToken, profile, done) => done(null, { id: profile.id, name: profile.displayName }),
  ),
);
passport.serializeUser((user, done) => done(null, user));
passport.deserializeUser((user: Express.User, done) => done(null, user));

const secret = process.env.KUDOS_WEBHOOK_SECRET;
if (!secret) throw new Error('set KUDOS_WEBHOOK_SECRET (16 characters or more)');
const hook = kudosWebhook({
  secret,
  onNotification: (n) => console.log(`notification ${n.key}`),
});

// 3. passport-kudos/otel and kudos-payments/otel: a span for each operation, the counters and
// histograms, and the gauges of what waits unprocessed in each receiver named here.
kudosOpenTelemetry();
paymentsOpenTelemetry({ receivers: { payments: hook } });

const app = express();
app.post('/webhooks/kudos', hook);
app.get('/metrics', (req, res) => prometheus.getMetricsRequestHandler(req, res));
app.get('/healthz', async (_req, res) => {
  const status = await hook.status();
  const healthy = status.storeOk && status.lookupOk && (status.oldestUnprocessedMs ?? 0) < 10 * 60_000;
  res.status(healthy ? 200 : 503).json(status);
});
app.use(
  session({
    secret: process.env.SESSION_SECRET ?? randomBytes(32).toString('base64url'),
    resave: false,
    saveUninitialized: false,
  }),
);
app.use(passport.session());
app.get('/auth/kudos', passport.authenticate('kudos'));
app.get('/auth/kudos/callback', passport.authenticate('kudos', { failureRedirect: '/' }), (req, res) => {
  res.send(`signed in as ${(req.user as { id: string }).id}`);
});
app.listen(Number(process.env.PORT ?? 3000));
