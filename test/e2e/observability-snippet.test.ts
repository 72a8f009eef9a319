import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { SNIPPET_HOOK_MS } from '../helpers/machine-wait.js';
import { compile, runSnippet, SNIPPET_SECRET } from '../helpers/snippets.js';

// docs/observability.md's OpenTelemetry setup (docs/snippets/observability.ts), compiled and run as
// it is against the emulator: a sign-in is a trace whose token request is a child of the callback,
// a payment is counted, and /metrics and /healthz answer.
describe('the OpenTelemetry setup of docs/observability.md (docs/snippets/observability.ts)', () => {
  let kudos: KudosEmulator;
  let app: Awaited<ReturnType<typeof runSnippet>>;

  beforeAll(async () => {
    const file = compile('observability');
    kudos = await startKudosEmulator({
      autoLogin: 'alice',
      users: PAYMENT_USERS,
      clients: [
        {
          clientID: 'kudos-demo-client',
          clientSecret: 'kudos-demo-secret',
          redirectURIs: ['http://127.0.0.1/auth/kudos/callback'],
        },
      ],
      agents: [{ id: 'shop-agent' }],
      paymentDelayMs: 5,
    });
    app = await runSnippet(file, { KUDOS_AUTH_URL: kudos.authURL, KUDOS_BASE_URL: kudos.baseURL });
  }, SNIPPET_HOOK_MS);
  afterAll(async () => {
    app?.child.kill('SIGTERM');
    await kudos?.close();
  });

  it('prints the sign-in as a trace, counts it and the payment, and answers /metrics and /healthz', async () => {
    const browser = new CookieClient();
    let res = await browser.get(`${app.url}/auth/kudos`);
    for (let hops = 0; hops < 5 && res.status === 302; hops++) res = await browser.get(locationOf(res));
    expect(await res.text()).toBe('signed in as alice');
    kudos.setWebhook('shop-agent', `${app.url}/webhooks/kudos?token=${SNIPPET_SECRET}`);
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();

    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^kudos_signins_total\{kudos_outcome="success",otel_scope_name="passport-kudos",otel_scope_version="0\.1\.0"\} 1$/m,
    );
    expect(metrics).toMatch(
      /^kudos_notifications_total\{kudos_outcome="processed",kudos_source="notification",otel_scope_name="kudos-payments",otel_scope_version="0\.1\.0"\} 1$/m,
    );
    expect(metrics).toMatch(
      /^kudos_payments_unprocessed\{kudos_receiver="payments",otel_scope_name="kudos-payments",otel_scope_version="0\.1\.0"\} 0$/m,
    );
    const health = await fetch(`${app.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ unprocessed: 0, storeOk: true });

    // The console exporter's spans: the token request's parent is the callback span.
    for (let i = 0; i < 3000 && !app.output.includes("name: 'kudos.notification'"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const spans = app.output.split(/\n(?=\{\n)/).filter((s) => s.includes('traceId'));
    const callback = spans.find((s) => s.includes("name: 'kudos.callback'")) ?? '';
    const token = spans.find((s) => s.includes("'kudos.operation': 'token'")) ?? '';
    const callbackId = /\n {2}id: '(\w+)'/.exec(callback)?.[1];
    expect(callbackId).toMatch(/^[0-9a-f]{16}$/);
    expect(token).toContain("name: 'POST'");
    expect(token).toMatch(new RegExp(`parentSpanContext: \\{[^}]*spanId: '${callbackId}'`));
    expect(spans.some((s) => s.includes(`'kudos.tx_hash': '${tx.txHash}'`))).toBe(true);
    expect(app.output).toContain(`notification ${tx.txHash}:success`);
  });
});
