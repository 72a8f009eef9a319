import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleNotification } from '../../../../test/helpers/notifications.js';
import { TraceRecorder } from '../../../../test/helpers/trace-recorder.js';
import { deliver, startWebhookApp, type WebhookApp } from '../../../../test/helpers/webhook-app.js';
import { type KudosRefusal, kudosWebhook } from '../../src/index.js';

const SECRET = 'shop-agent-secret-0123456789';

describe('kudosWebhook secret option (regression: an unset variable accepted anyone)', () => {
  const onNotification = () => undefined;

  it.each([
    ['undefined', undefined],
    ['empty', ''],
    ['no strings', []],
    ['short', 'short'],
  ])('throws TypeError for a %s secret', (_name, secret) => {
    expect(() => kudosWebhook({ onNotification, secret } as never)).toThrow(TypeError);
    expect(() => kudosWebhook({ onNotification, secret } as never)).toThrow(/"secret"/);
  });

  it('throws when the option is left out altogether', () => {
    expect(() => kudosWebhook({ onNotification } as never)).toThrow(/secret: false/);
  });

  it('runs without a secret only with secret: false', async () => {
    const app = await startWebhookApp('node:http', { secret: false });
    try {
      expect((await deliver(app.url, sampleNotification())).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('what onError and the handler see of the URL', () => {
  let app: WebhookApp;
  const seen: string[] = [];
  // Every tracing channel is watched while the secrets below pass through the receiver.
  const recorder = new TraceRecorder();
  beforeAll(async () => {
    app = await startWebhookApp('express5', {
      secret: SECRET,
      onError: (error: KudosRefusal, req) => seen.push(`${error.code} ${req?.originalUrl ?? req?.url}`),
    });
  });
  afterEach(() => {
    seen.length = 0;
  });
  afterAll(() => {
    recorder.close();
    return app.close();
  });

  it('redacts a token parameter in any letter case and the last path segment, matched or not', async () => {
    await deliver(`${app.url}?Token=wrong-secret-0000000000&x=1`, sampleNotification());
    await deliver(`${app.url}/wrong-secret-1111111111/`, sampleNotification());
    await deliver(`${app.url}/wrong-secret-2222222222`, sampleNotification());
    expect(seen).toEqual([
      'invalid_secret /webhooks/REDACTED?Token=REDACTED&x=1',
      'invalid_secret /webhooks/kudos/REDACTED/',
      'invalid_secret /webhooks/kudos/REDACTED',
    ]);
    expect(seen.join(' ')).not.toContain('wrong-secret');
  });

  it('redacts the real secret from every part of the URL: another path segment, token[]=, any parameter', async () => {
    for (const mount of ['node:http', 'express4'] as const) {
      const parts: string[] = [];
      const other = await startWebhookApp(mount, {
        secret: SECRET,
        onError: (error: KudosRefusal, req) =>
          parts.push(
            `${error.code} ${req?.url} ${req?.originalUrl ?? ''} ${JSON.stringify((req as { query?: unknown })?.query ?? {})}`,
          ),
      });
      const text = { contentType: 'text/plain' }; // refused after the secret check: onError sees the URL
      try {
        // Express routes only /webhooks/kudos[/:secret]; node:http hands the receiver any path.
        if (mount === 'node:http') await deliver(`${other.url}/${SECRET}/extra`, sampleNotification(), text);
        await deliver(`${other.url}?token[]=${SECRET}`, sampleNotification(), text);
        await deliver(`${other.url}?token=${SECRET}&note=${SECRET}`, sampleNotification(), text);
        await deliver(`${other.url}?x=${encodeURIComponent(SECRET)}`, sampleNotification(), text);
        expect(parts).toHaveLength(mount === 'node:http' ? 4 : 3);
        expect(parts.join('\n')).not.toContain(SECRET);
        expect(parts.join('\n')).toContain('REDACTED');
      } finally {
        await other.close();
      }
    }
  });

  it('accepts the secret as the password of HTTP Basic credentials, in constant time', async () => {
    const basic = (user: string, password: string) =>
      `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const post = (authorization: string) =>
      fetch(app.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify(sampleNotification()),
      });
    expect((await post(basic('shop-agent', SECRET))).status).toBe(200);
    expect((await post(basic('shop-agent', 'not-the-secret-xxxxxxxx'))).status).toBe(401);
    expect((await post(basic(SECRET, ''))).status).toBe(401); // the user name is not the secret
    expect((await post(`Bearer ${SECRET}`)).status).toBe(401);
    expect(app.calls).toHaveLength(1);
  });

  it('none of these secrets, right or wrong, is in any message of the tracing channels', () => {
    const notifications = recorder.of('notification');
    expect(notifications.length).toBeGreaterThanOrEqual(10);
    expect(notifications.filter((m) => m.code === 'invalid_secret').length).toBeGreaterThanOrEqual(6);
    const text = recorder.seen.join('\n');
    for (const secret of [SECRET, encodeURIComponent(SECRET), 'wrong-secret', 'not-the-secret']) {
      expect(text).not.toContain(secret);
    }
  });
});
