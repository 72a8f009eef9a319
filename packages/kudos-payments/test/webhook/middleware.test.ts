import { afterEach, describe, expect, it } from 'vitest';
import { sampleNotification, withTx } from '../../../../test/helpers/notifications.js';
import {
  deliver,
  startWebhookApp,
  WEBHOOK_MOUNTS,
  type WebhookApp,
} from '../../../../test/helpers/webhook-app.js';
import { type KudosDedupeStore, MemoryDedupeStore, parseKudosNotification } from '../../src/index.js';

const SECRET = 'agent-webhook-secret-0123456789';

describe.each(WEBHOOK_MOUNTS)('kudosWebhook mounted as %s (real HTTP)', (mount) => {
  let app: WebhookApp;
  afterEach(() => app.close());

  it('accepts the sample with 200 and calls the handler once with the normalized notification', async () => {
    app = await startWebhookApp(mount);
    const res = await deliver(app.url, sampleNotification());
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, key: `${sampleNotification().tx.txHash}:success` });
    expect(app.calls).toHaveLength(1);
    expect(app.calls[0]?.notification).toEqual(parseKudosNotification(sampleNotification()));
  });

  it('answers a duplicate delivery 200 without calling the handler again', async () => {
    app = await startWebhookApp(mount);
    await deliver(app.url, sampleNotification());
    const again = await deliver(app.url, sampleNotification());
    expect(again).toMatchObject({ status: 200, json: { ok: true, duplicate: true } });
    expect(app.calls).toHaveLength(1);
    await deliver(app.url, withTx({ status: 'pending' }));
    expect(app.calls).toHaveLength(2); // another status is another event
  });

  it('calls the handler once under 50 concurrent duplicates: 409 while it runs, 200 duplicate once done', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    app = await startWebhookApp(mount, {
      onNotification: async (n) => {
        await gate; // held until every other delivery has been answered
        app.calls.push({ notification: n, url: undefined, originalUrl: undefined });
      },
    });
    const answered: Array<Awaited<ReturnType<typeof deliver>>> = [];
    const all = Array.from({ length: 50 }, () =>
      deliver(app.url, sampleNotification()).then((a) => {
        answered.push(a);
        return a;
      }),
    );
    await expect.poll(() => answered.length, { timeout: 10_000 }).toBe(49);
    release();
    const answers = await Promise.all(all);
    expect(answers.filter((a) => a.status === 200 && a.json.duplicate === undefined)).toHaveLength(1);
    const busy = answers.filter((a) => a.status === 409);
    expect(busy).toHaveLength(49);
    expect(busy[0]?.json.code).toBe('in_progress');
    expect(busy[0]?.headers.get('retry-after')).toBe('5');
    expect(app.calls).toHaveLength(1);
    const again = await deliver(app.url, sampleNotification());
    expect(again).toMatchObject({ status: 200, json: { duplicate: true } });
    expect(app.calls).toHaveLength(1);
  });

  it('answers 500 when the handler throws, forgets the key, and processes the redelivery', async () => {
    let failures = 1;
    const seen: string[] = [];
    app = await startWebhookApp(mount, {
      onNotification: async (n) => {
        if (failures-- > 0) throw new Error('database is down: password=hunter2');
        seen.push(n.key);
      },
    });
    const failed = await deliver(app.url, sampleNotification());
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({
      error: 'the notification could not be processed; it will be accepted on redelivery',
      code: 'handler_failed',
    });
    const retried = await deliver(app.url, sampleNotification());
    expect(retried).toMatchObject({ status: 200, json: { ok: true } });
    expect(retried.json.duplicate).toBeUndefined();
    expect((await deliver(app.url, sampleNotification())).json.duplicate).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('answers 405 with Allow for methods other than POST', async () => {
    app = await startWebhookApp(mount);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await deliver(app.url, sampleNotification(), { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.json.code).toBe('method_not_allowed');
    }
    expect(app.calls).toHaveLength(0);
  });

  it.each([
    [null, 'Content-Type application/json is required'],
    ['text/plain', 'Content-Type must be application/json (UTF-8), not "text/plain"'],
    ['application/x-www-form-urlencoded', 'Content-Type must be application/json'],
    ['application/json; charset=latin1', 'Content-Type must be application/json (UTF-8)'],
  ])('answers 415 for content type %s', async (contentType, message) => {
    app = await startWebhookApp(mount);
    const res = await deliver(app.url, JSON.stringify(sampleNotification()), { contentType });
    expect(res.status).toBe(415);
    expect(res.json.code).toBe('unsupported_media_type');
    expect(res.json.error).toContain(message);
    expect(app.calls).toHaveLength(0);
  });

  it('accepts an +json media type and an explicit UTF-8 charset', async () => {
    app = await startWebhookApp(mount);
    const res = await deliver(app.url, sampleNotification(), {
      contentType: 'application/json; charset=UTF-8',
    });
    expect(res.status).toBe(200);
  });

  it('answers 413 for a body over the limit (default 64 kB)', async () => {
    app = await startWebhookApp(mount);
    const body = { ...sampleNotification(), metadata: { pad: 'x'.repeat(70 * 1024) } };
    const res = await deliver(app.url, body);
    expect(res.status).toBe(413);
    expect(res.json).toEqual({
      error: 'notification body is larger than 65536 bytes',
      code: 'payload_too_large',
    });
    expect(app.calls).toHaveLength(0);
  });

  it.each([
    ['empty', '', 'invalid_json'],
    ['truncated', '{"tx":{"txHash":', 'invalid_json'],
    ['an array', '[1,2]', 'not_an_object'],
    ['a string', '"hello"', 'not_an_object'],
    ['null', 'null', 'not_an_object'],
  ])('answers 400 for a body that is %s', async (name, text, code) => {
    app = await startWebhookApp(mount);
    const res = await deliver(app.url, text);
    expect(res.status).toBe(400);
    // express.json() (strict) refuses top-level strings and null itself: its error is mapped to invalid_json.
    const strictParser = mount.endsWith('+json') && (name === 'a string' || name === 'null');
    expect(res.json.code).toBe(strictParser ? 'invalid_json' : code);
    expect(app.calls).toHaveLength(0);
  });

  it('answers 422 with { error, code, path } for a schema violation', async () => {
    app = await startWebhookApp(mount);
    const res = await deliver(app.url, withTx({ amount: { amount: '-5', denom: 'nanokudos' } }));
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      error:
        '"tx.amount.amount" must be a positive integer string of plain digits without leading zeros, at most 78 long',
      code: 'invalid_amount',
      path: 'tx.amount.amount',
    });
  });

  it('requires the configured denom', async () => {
    app = await startWebhookApp(mount, { denom: 'ukudos' });
    const res = await deliver(app.url, sampleNotification());
    expect(res).toMatchObject({ status: 422, json: { code: 'unexpected_denom', path: 'tx.amount.denom' } });
  });

  it('checks the secret from ?token= and redacts it before the handler sees the URL', async () => {
    app = await startWebhookApp(mount, { secret: SECRET });
    expect((await deliver(app.url, sampleNotification())).status).toBe(401);
    const wrong = await deliver(`${app.url}?token=${SECRET}x`, sampleNotification());
    expect(wrong).toMatchObject({
      status: 401,
      json: { code: 'invalid_secret', error: 'webhook secret is missing or wrong' },
    });
    expect(JSON.stringify(wrong.json)).not.toContain(SECRET);
    expect(app.calls).toHaveLength(0);
    const ok = await deliver(`${app.url}?token=${SECRET}&x=1`, sampleNotification());
    expect(ok.status).toBe(200);
    const seen = `${app.calls[0]?.url} ${app.calls[0]?.originalUrl}`;
    expect(seen).not.toContain(SECRET);
    expect(app.calls[0]?.originalUrl ?? app.calls[0]?.url).toBe('/webhooks/kudos?token=REDACTED&x=1');
  });

  it('checks the secret from the last path segment, and accepts any of several (rotation)', async () => {
    app = await startWebhookApp(mount, { secret: ['old-secret-0123456789', SECRET] });
    const res = await deliver(`${app.url}/${SECRET}`, sampleNotification());
    expect(res.status).toBe(200);
    expect(app.calls[0]?.originalUrl ?? app.calls[0]?.url).toBe('/webhooks/kudos/REDACTED');
    expect((await deliver(`${app.url}/old-secret-0123456789`, withTx({ status: 'pending' }))).status).toBe(
      200,
    );
    expect((await deliver(`${app.url}/not-the-secret`, withTx({ status: 'fail' }))).status).toBe(401);
    expect((await deliver(`${app.url}?token=a&token=b`, withTx({ status: 'fail' }))).status).toBe(401);
  });

  it('answers 503 with Retry-After and calls nothing when the dedupe store is down', async () => {
    const down: KudosDedupeStore = {
      claim: () => Promise.reject(new Error('ECONNREFUSED')),
      complete: () => Promise.resolve(),
      release: () => Promise.resolve(),
    };
    app = await startWebhookApp(mount, { store: down });
    const res = await deliver(app.url, sampleNotification());
    expect(res).toMatchObject({ status: 503, json: { code: 'store_unavailable' } });
    expect(res.headers.get('retry-after')).toBe('5');
    expect(app.calls).toHaveLength(0);
  });
});

describe('kudosWebhook setup and misuse', () => {
  let app: WebhookApp | undefined;
  afterEach(() => app?.close());

  it('explains a body consumed by another middleware', async () => {
    app = await startWebhookApp('express5', {
      before: (req, _res, next) => {
        req.resume();
        req.on('end', next);
      },
    });
    const res = await deliver(app.url, sampleNotification());
    expect(res.status).toBe(500);
    expect(res.json.code).toBe('body_already_consumed');
    expect(res.json.error).toMatch(/mount kudosWebhook\(\) before it, or after express.json\(\)/);
  });

  it('throws TypeError for bad options', async () => {
    await expect(startWebhookApp('node:http', { onNotification: 'x' as never })).rejects.toThrow(
      '"onNotification"',
    );
    await expect(startWebhookApp('node:http', { secret: 'short' })).rejects.toThrow('at least 16 characters');
    await expect(startWebhookApp('node:http', { maxBodyBytes: -1 })).rejects.toThrow(
      '"maxBodyBytes" must be a positive number',
    );
  });

  it('releases the key when a claim succeeded but confirmation failed, so the redelivery is processed', async () => {
    let calls = 0;
    const store = new MemoryDedupeStore();
    app = await startWebhookApp('node:http', {
      store,
      confirm: () => {
        calls++;
        if (calls === 1) throw new Error('chain unreachable');
        return { confirmed: true };
      },
    });
    const first = await deliver(app.url, sampleNotification());
    expect(first).toMatchObject({ status: 503, json: { code: 'confirmation_unavailable' } });
    expect(store.size).toBe(0);
    expect((await deliver(app.url, sampleNotification())).status).toBe(200);
    expect(app.calls[0]?.notification).toMatchObject({ confirmed: true, paid: true });
  });

  it('reports every refusal to onError without the secret', async () => {
    const seen: string[] = [];
    app = await startWebhookApp('node:http', {
      secret: SECRET,
      onError: (error, req) => seen.push(`${error.code} ${req?.url}`),
    });
    await deliver(`${app.url}?token=wrong-secret-xxxxxxxx`, sampleNotification());
    await deliver(`${app.url}?token=${SECRET}`, 'nope');
    expect(seen).toEqual([
      'invalid_secret /webhooks/kudos?token=REDACTED',
      'invalid_json /webhooks/kudos?token=REDACTED',
    ]);
  });
});

describe('kudosWebhook with a custom dedupe store', () => {
  it('takes a lease, completes for the dedupe TTL, releases on failure, and refuses a store that answers a boolean', async () => {
    const calls: string[] = [];
    const state = new Map<string, 'processing' | 'done'>();
    const store: KudosDedupeStore = {
      claim: async (key, leaseMs) => {
        calls.push(`claim ${leaseMs}`);
        const held = state.get(key);
        if (held) return held;
        state.set(key, 'processing');
        return 'claimed';
      },
      complete: async (key, ttlMs) => {
        calls.push(`complete ${ttlMs}`);
        state.set(key, 'done');
      },
      release: async (key) => {
        calls.push('release');
        state.delete(key);
      },
    };
    let fail = true;
    const app = await startWebhookApp('node:http', {
      store,
      leaseMs: 30_000,
      dedupeTtlMs: 86_400_000,
      onNotification: () => {
        if (fail) {
          fail = false;
          throw new Error('first attempt fails');
        }
      },
    });
    try {
      expect((await deliver(app.url, sampleNotification())).status).toBe(500);
      expect((await deliver(app.url, sampleNotification())).json).toEqual({
        ok: true,
        key: expect.any(String),
      });
      expect((await deliver(app.url, sampleNotification())).json.duplicate).toBe(true);
      expect(calls).toEqual(['claim 30000', 'release', 'claim 30000', 'complete 86400000', 'claim 30000']);
    } finally {
      await app.close();
    }
    const legacy = await startWebhookApp('node:http', {
      store: { ...store, claim: async () => true as unknown as 'claimed' },
    });
    try {
      expect(await deliver(legacy.url, sampleNotification())).toMatchObject({
        status: 503,
        json: { code: 'store_unavailable' },
      });
      expect(legacy.calls).toHaveLength(0);
    } finally {
      await legacy.close();
    }
  });
});

describe('kudosWebhook with a store that throws synchronously', () => {
  it('still answers 503 store_unavailable and calls nothing', async () => {
    const seen: string[] = [];
    const app = await startWebhookApp('node:http', {
      store: {
        claim: () => {
          throw new Error('not connected');
        },
        complete: async () => undefined,
        release: async () => undefined,
      },
      onNotification: (n) => void seen.push(n.key),
    });
    try {
      expect(await deliver(app.url, sampleNotification())).toMatchObject({
        status: 503,
        json: { code: 'store_unavailable' },
      });
      expect(seen).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});
