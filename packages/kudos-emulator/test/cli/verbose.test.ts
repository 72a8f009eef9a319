import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authURLOf, runCli, type StartedEmulator, startCli } from '../../../../test/helpers/cli.js';
import { CookieClient, locationOf } from '../../../../test/helpers/cookie-client.js';
import { exchangeCode, passAuthorization } from '../../../../test/helpers/emulator-user.js';
import { startWebhookSink, type WebhookSink } from '../../../../test/helpers/webhook-sink.js';

// `kudos-emulator --verbose`: one line per operation served and per delivery, named as the app's
// tracing channels name them, on stdout, even with --quiet; never a secret or a query string.
describe('kudos-emulator --verbose', () => {
  let emulator: StartedEmulator;
  let sink: WebhookSink;
  let url: string;
  let stdout = '';
  const SECRET = 'verbose-client-secret';

  beforeAll(async () => {
    sink = await startWebhookSink();
    emulator = startCli([
      '--port',
      '0',
      '--quiet',
      '--verbose',
      '--client',
      `shop:${SECRET}:http://127.0.0.1/cb`,
      '--agent',
      `shop-agent=${sink.url}?token=verbose-webhook-secret-000`,
    ]);
    emulator.child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    url = authURLOf(await emulator.output);
  });
  afterAll(async () => {
    emulator.child.kill('SIGTERM');
    await emulator.exit;
    await sink.close();
  });

  async function lines(pattern: RegExp, count = 1): Promise<string[]> {
    for (let i = 0; i < 6000; i++) {
      const found = stdout.split('\n').filter((l) => pattern.test(l));
      if (found.length >= count) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return stdout.split('\n').filter((l) => pattern.test(l));
  }

  it('prints authorize, token, refresh, revoke, api and notification lines, and nothing of the request log', async () => {
    const browser = new CookieClient();
    const start = new URL(`${url}/in/oauth`);
    for (const [k, v] of Object.entries({
      client_id: 'shop',
      redirect_uri: 'http://127.0.0.1/cb',
      response_type: 'code',
      scope: 'profile',
      state: 'a-state-that-must-not-be-printed',
    })) {
      start.searchParams.set(k, v);
    }
    const back = locationOf(await passAuthorization(browser, start));
    const code = back.searchParams.get('code') as string;
    const tokens = await exchangeCode(`${url}/api/oauth/access_token`, {
      clientID: 'shop',
      clientSecret: SECRET,
      code,
      redirectURI: 'http://127.0.0.1/cb',
    });
    const form = (fields: Record<string, string>) =>
      fetch(`${url}/api/oauth/${fields.token ? 'revoke' : 'access_token'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: 'shop', client_secret: SECRET, ...fields }),
      });
    expect((await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(
      200,
    );
    expect((await form({ grant_type: 'refresh_token', refresh_token: 'not-a-token' })).status).toBe(400);
    const profile = await fetch(`${url}/api/users/profile`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(profile.status).toBe(200);
    expect((await form({ token: tokens.refresh_token })).status).toBe(200);
    const paid = await runCli([
      'trigger',
      'payment',
      '--to',
      'bobby',
      '--amount',
      '1',
      '--via',
      'shop-agent',
      '--url',
      url,
    ]);
    expect(paid.code).toBe(0);

    expect(
      await lines(
        /^\[kudos-emulator\] passport-kudos:authorize outcome=success status=\d+ ms=\d+ (GET|POST) \/in\/oauth\/?$/,
      ),
    ).not.toEqual([]);
    expect(
      await lines(/passport-kudos:token outcome=success status=200 ms=\d+ POST \/api\/oauth\/access_token$/),
    ).toHaveLength(1);
    expect(await lines(/passport-kudos:refresh outcome=success status=200 /)).toHaveLength(1);
    expect(await lines(/passport-kudos:refresh outcome=error status=400 /)).toHaveLength(1);
    expect(
      await lines(/passport-kudos:api outcome=success status=200 ms=\d+ GET \/api\/users\/profile$/),
    ).toHaveLength(1);
    expect(await lines(/passport-kudos:revoke outcome=success status=200 /)).toHaveLength(1);
    const [delivery] = await lines(/passport-kudos:notification /);
    expect(delivery).toMatch(
      /passport-kudos:notification outcome=delivered status=200 ms=\d+ agent=shop-agent tx=[0-9A-F]{64} txStatus=success attempt=1$/,
    );
    // --quiet still holds for the request log; after the banner (which shows the clients' secrets,
    // as always) no secret, token, code or state is printed.
    const after = stdout.slice(stdout.indexOf('--help for their options'));
    expect(after).not.toContain('issued tokens');
    expect(after.split('\n').filter((l) => l.includes('passport-kudos:')).length).toBeGreaterThanOrEqual(7);
    for (const secret of [
      SECRET,
      code,
      tokens.access_token,
      tokens.refresh_token,
      'a-state-that',
      'verbose-webhook-secret',
    ]) {
      expect(after).not.toContain(secret);
    }
  });

  it('says so in --help', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toContain('--verbose');
    expect(help.stdout.endsWith('\n')).toBe(true); // a shell prompt after it starts on its own line
    expect(help.stdout).toContain('passport-kudos:token outcome=success');
  });
});
