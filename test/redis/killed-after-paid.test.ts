import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChildApp, startChildApp } from '../helpers/child-app.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';
import { payLink } from '../helpers/pay-link.js';
import { sharedRedis } from '../helpers/redis-server.js';

// The app killed (SIGKILL) between onPaid and the order's `fulfilled` mark, against a real
// redis-server and the emulator's real sender: started again, its redrive() tells the app again of
// the order left `paid` and marks it fulfilled. An order whose onPaid returned is never left paid.

const APP = join(import.meta.dirname, '../fixtures/apps/paying-shop.mjs');
const SECRET = 'killed-after-paid-secret-0123';

describe('an app killed just after onPaid returned (real process, Redis, emulator sender)', () => {
  let redis: { url: string; close: () => Promise<void> };
  let kudos: KudosEmulator;
  let dir: string;
  let shop: ChildApp | undefined;
  beforeAll(async () => {
    redis = await sharedRedis();
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      paymentDelayMs: 5,
      // One attempt: nothing but the app's own recovery can finish the order.
      webhook: { attempts: 1, timeoutMs: 3000 },
    });
    dir = mkdtempSync(join(tmpdir(), 'kudos-killed-paid-'));
  });
  afterEach(async () => {
    shop?.child.kill('SIGKILL');
    await shop?.exited;
    shop = undefined;
  });
  afterAll(async () => {
    await kudos?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string>): Promise<ChildApp> {
    shop = await startChildApp(APP, { WEBHOOK_SECRET: SECRET, REDIS_URL: redis.url, ...env });
    kudos.setWebhook('shop-agent', `${shop.url}/hook?token=${SECRET}`);
    return shop;
  }

  it('started again, redrive() tells the app of the order left paid and marks it fulfilled', async () => {
    const env = {
      PREFIX: `killed:${randomUUID()}:`,
      KUDOS_AUTH_URL: kudos.authURL,
      KUDOS_BASE_URL: kudos.baseURL,
      RECEIVER: kudos.walletOf('bobby'),
      PAID_LOG: join(dir, `paid-${randomUUID()}.log`),
      LEASE_MS: '300',
      HANDLER_TIMEOUT_MS: '500',
    };
    const paid = () =>
      existsSync(env.PAID_LOG) ? readFileSync(env.PAID_LOG, 'utf8').split('\n').filter(Boolean) : [];
    let s = await start({ ...env, KILL_AFTER_PAID: '1' });
    const link = (await (await fetch(`${s.url}/orders`, { method: 'POST' })).json()) as {
      url: string;
      order: { reference: string };
    };
    const { reference } = link.order;
    payLink(kudos, link.url, 'alice');
    await s.exited; // killed just after its onPaid returned
    await kudos.idle();
    expect(paid()).toEqual([reference]);

    s = await start(env);
    const status = async () =>
      ((await (await fetch(`${s.url}/orders/${reference}`)).json()) as { status: string }).status;
    // Past the handler's time and lease (800 ms), the order is no delivery's any more: redrive() tells it.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const redriven = (await (await fetch(`${s.url}/redrive`, { method: 'POST' })).json()) as Record<
      string,
      number
    >;
    expect(redriven).toMatchObject({ failed: 0, remaining: 0 });
    expect(await status()).toBe('fulfilled');
    // onPaid at least once (as documented: a kill between onPaid and its mark tells it again, and a
    // busy machine may make a delivery run it too); one credit: the order is fulfilled once.
    expect(paid().filter((r) => r === reference).length).toBeGreaterThanOrEqual(1);
    // A later redrive tells nobody again.
    await fetch(`${s.url}/redrive`, { method: 'POST' });
    const told = paid().length;
    await fetch(`${s.url}/redrive`, { method: 'POST' });
    expect(paid()).toHaveLength(told);
  });
});
