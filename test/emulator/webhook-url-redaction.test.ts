import { afterEach, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/emulator/index.js';
import { startCli } from '../helpers/cli.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';

// A webhook secret carried as the last path segment (which the receiver accepts) is never shown:
// not on the home page, in the admin API's state and deliveries, nor in the start banner.
const SECRET = 'path-secret-0123456789abc';
const HOOK = `http://127.0.0.1:9/webhooks/kudos/${SECRET}`;

describe('the emulator redacts a secret in a webhook URL path everywhere it shows the URL', () => {
  let kudos: KudosEmulator | undefined;
  afterEach(async () => {
    await kudos?.close();
  });

  it('on the home page, in /_emulator/state and /_emulator/deliveries', async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent', webhookURL: HOOK }],
      paymentDelayMs: 1,
      webhook: { attempts: 1 },
    });
    kudos.pay({ from: 'alice', to: 'bobby', amount: '1', via: 'shop-agent' });
    await kudos.idle();
    for (const path of ['/', '/_emulator/state', '/_emulator/deliveries']) {
      const text = await (await fetch(`${kudos.authURL}${path}`)).text();
      expect(text, path).not.toContain(SECRET);
      expect(text, path).toContain('/webhooks/kudos/REDACTED');
    }
    // Short last segments are paths, not secrets: shown as they are.
    kudos.setWebhook('shop-agent', 'http://127.0.0.1:9/webhooks/kudos');
    expect(await (await fetch(`${kudos.authURL}/_emulator/state`)).text()).toContain(
      'http://127.0.0.1:9/webhooks/kudos',
    );
  });

  it('in the start banner', async () => {
    const started = startCli(['--port', '0', '--quiet', '--agent', `shop-agent=${HOOK}`]);
    const banner = await started.output;
    started.child.kill('SIGTERM');
    await started.exit;
    expect(banner).toContain('shop-agent');
    expect(banner).not.toContain(SECRET);
    expect(banner).toContain('/webhooks/kudos/REDACTED');
  });
});
