import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../../test/helpers/emulator-user.js';
import { sampleNotification } from '../../../../test/helpers/notifications.js';
import { deliver, startWebhookApp, type WebhookApp } from '../../../../test/helpers/webhook-app.js';

const SECRET = 'shop-agent-secret-0123456789';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('a delivery that arrives while an earlier one is still being processed', () => {
  let app: WebhookApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('answers 409 in_progress with Retry-After while the first runs, even with a lease shorter than the handler', async () => {
    let runs = 0;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    app = await startWebhookApp('node:http', {
      leaseMs: 60,
      onNotification: async () => {
        runs++;
        await finished; // held by the test until the second delivery was answered
      },
    });
    const first = deliver(app.url, sampleNotification());
    await expect.poll(() => runs).toBe(1); // the handler is running
    await sleep(200); // the 60 ms lease would have run out three times without renewal
    const second = await deliver(app.url, sampleNotification());
    expect(second.status).toBe(409);
    expect(second.json.code).toBe('in_progress');
    expect(second.headers.get('retry-after')).toBe('5');
    finish();
    expect((await first).status).toBe(200);
    expect((await deliver(app.url, sampleNotification())).json.duplicate).toBe(true);
    expect(runs).toBe(1);
  });

  it('bounds a slow handler with handlerTimeoutMs (503), and counts its late success', async () => {
    let runs = 0;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    app = await startWebhookApp('node:http', {
      handlerTimeoutMs: 100,
      onNotification: async () => {
        runs++;
        await finished; // held by the test
      },
    });
    const answer = await deliver(app.url, sampleNotification());
    expect(answer.status).toBe(503);
    expect(answer.json.code).toBe('handler_timeout');
    expect(answer.headers.get('retry-after')).toBe('5');
    expect((await deliver(app.url, sampleNotification())).status).toBe(409); // still running, lease kept
    finish();
    await expect
      .poll(async () => (await deliver(app?.url ?? '', sampleNotification())).json.duplicate)
      .toBe(true);
    expect(runs).toBe(1);
  });

  it('releases the key after a late failure, so the next delivery processes it', async () => {
    const reported: string[] = [];
    let runs = 0;
    let fail: () => void = () => undefined;
    const failed = new Promise<void>((resolve) => {
      fail = resolve;
    });
    app = await startWebhookApp('node:http', {
      handlerTimeoutMs: 50,
      onError: (error) => reported.push(error.code),
      onNotification: async () => {
        runs++;
        if (runs === 1) {
          await failed; // held by the test until the timeout was answered
          throw new Error('database went away');
        }
      },
    });
    expect((await deliver(app.url, sampleNotification())).status).toBe(503);
    fail();
    await expect.poll(() => reported).toContain('handler_failed'); // the late failure is told to onError
    expect((await deliver(app.url, sampleNotification())).status).toBe(200);
    expect(runs).toBe(2);
  });
});

describe('every payment handled exactly once with the emulator’s real retries (regression: a payment was lost)', () => {
  let kudos: KudosEmulator;
  let app: WebhookApp | undefined;
  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      paymentDelayMs: 5,
      // The service gives up on an attempt after 300 ms here (5 s by default) and retries with a doubling delay.
      webhook: { attempts: 8, retryDelayMs: 100, timeoutMs: 300 },
    });
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  afterAll(() => kudos.close());

  /** Pays through the emulator to a receiver whose handler is `handle`; returns the successful runs. */
  async function payTo(
    handle: (run: number) => Promise<void>,
    options: { handlerTimeoutMs?: number; leaseMs?: number } = {},
  ) {
    let runs = 0;
    const succeeded: string[] = [];
    app = await startWebhookApp('express5', {
      secret: SECRET,
      ...options,
      onNotification: async (n) => {
        runs++;
        await handle(runs);
        succeeded.push(n.key);
      },
    });
    kudos.setWebhook('shop-agent', `${app.url}?token=${SECRET}`);
    const before = kudos.deliveries.length;
    const tx = kudos.pay({ from: 'alice', to: 'bobby', amount: '3', via: 'shop-agent' });
    await kudos.idle();
    const attempts = kudos.deliveries.slice(before);
    return { tx, runs, succeeded, attempts };
  }

  it('a slow handler (longer than the service waits): processed once, later attempts answered 409 then 200', async () => {
    const { tx, succeeded, attempts, runs } = await payTo(() => sleep(1500));
    expect(succeeded).toEqual([`${tx.txHash}:success`]);
    expect(runs).toBe(1);
    expect(attempts[0]?.error).toBe('timeout');
    expect(attempts.some((a) => a.responseStatus === 409)).toBe(true);
    expect(attempts.at(-1)?.responseStatus).toBe(200);
  });

  it('a slow handler that fails once: the redelivery after the failure processes it, exactly once', async () => {
    const { tx, succeeded, attempts, runs } = await payTo(async (run) => {
      await sleep(500);
      if (run === 1) throw new Error('deadlock, try again');
    });
    expect(succeeded).toEqual([`${tx.txHash}:success`]);
    expect(runs).toBe(2);
    expect(attempts.at(-1)?.responseStatus).toBe(200);
  });

  it('a handler that hangs once: bounded by handlerTimeoutMs, processed once by a later attempt', async () => {
    const { tx, succeeded, attempts } = await payTo(
      async (run) => {
        if (run === 1) await new Promise<void>(() => undefined); // never settles
      },
      { handlerTimeoutMs: 150, leaseMs: 200 },
    );
    expect(succeeded).toEqual([`${tx.txHash}:success`]);
    expect(attempts.some((a) => a.responseStatus === 503)).toBe(true);
    expect(attempts.at(-1)?.responseStatus).toBe(200);
  });
});
