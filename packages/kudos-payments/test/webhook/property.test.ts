import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleNotification } from '../../../../test/helpers/notifications.js';
import { startWebhookApp, type WebhookApp } from '../../../../test/helpers/webhook-app.js';
import { NOTIFICATION_ERROR_STATUS } from '../../src/core/errors.js';

const DOCUMENTED = new Set<number>([200, ...Object.values(NOTIFICATION_ERROR_STATUS)]);
const RUNS = 10_000;

/**
 * Validity as the payments work states it, written independently of the parser: the oracle for
 * "the handler runs only for valid payloads". A money notification needs a transaction hash, a
 * status and an amount (one coin, or coins of one denom); no other field may refuse it.
 */
function isValid(body: unknown): boolean {
  const obj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!obj(body) || !obj(body.tx)) return false;
  const tx = body.tx;
  const coin = (v: unknown): v is { amount: string; denom: string } =>
    obj(v) &&
    typeof v.amount === 'string' &&
    /^[1-9][0-9]{0,77}$/.test(v.amount) &&
    typeof v.denom === 'string' &&
    v.denom.length > 0 &&
    v.denom.length <= 256;
  const coins = Array.isArray(tx.amount) ? tx.amount : [tx.amount];
  return (
    typeof tx.txHash === 'string' &&
    /^[0-9a-fA-F]{64}$/.test(tx.txHash) &&
    ['pending', 'success', 'fail', 'timeout'].includes(tx.status as string) &&
    coins.length > 0 &&
    coins.every(coin) &&
    coins.every((c) => (c as { denom: string }).denom === (coins[0] as { denom: string }).denom)
  );
}

const anyJson = fc.jsonValue({ maxDepth: 3 });
const txKeys = [
  'from',
  'fromId',
  'to',
  'toId',
  'ts',
  'completeTs',
  'txHash',
  'remarks',
  'status',
  'type',
  'amount',
];

/** The sample with one to three of its fields replaced by arbitrary JSON, deleted, or mutated. */
const mutatedSample = fc
  .array(
    fc.record({
      key: fc.constantFrom(...txKeys, 'amount.amount', 'amount.denom', 'metadata', '__proto__'),
      value: fc.oneof(
        anyJson,
        fc.constant(undefined),
        fc.constantFrom(
          '0',
          '-1',
          '01',
          '1e9',
          '0x10',
          ' 5',
          '18446744073709551617',
          'a'.repeat(64),
          'A'.repeat(63),
        ),
        fc.constantFrom(1e308, -0, 0, 1611659587189, 'pending', 'success', 'SUCCESS'),
      ),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((edits) => {
    const body = sampleNotification() as Record<string, unknown> & { tx: Record<string, unknown> };
    for (const { key, value } of edits) {
      if (key === 'metadata' || key === '__proto__') {
        Object.defineProperty(body, key, { value, enumerable: true, configurable: true, writable: true });
      } else if (key.startsWith('amount.')) {
        const amount =
          typeof body.tx.amount === 'object' && body.tx.amount !== null
            ? { ...(body.tx.amount as object) }
            : {};
        (amount as Record<string, unknown>)[key.slice(7)] = value;
        body.tx.amount = amount;
      } else if (value === undefined) {
        delete body.tx[key];
      } else {
        body.tx[key] = value;
      }
    }
    return JSON.stringify(body);
  });

/** Raw text: random JSON, random strings, and truncations of the sample. */
const rawText = fc.oneof(
  anyJson.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.nat({ max: 600 }).map((n) => JSON.stringify(sampleNotification()).slice(0, n)),
);

describe('kudosWebhook property: any body gets a documented answer; only valid payloads reach the handler', () => {
  let app: WebhookApp;
  let handled = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

  function post(text: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        app.url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  beforeAll(async () => {
    app = await startWebhookApp('node:http', {
      onNotification: () => {
        handled++;
      },
      // Every generated key must reach the handler check: never dedupe across runs.
      store: {
        claim: async () => 'claimed' as const,
        complete: async () => undefined,
        release: async () => undefined,
      },
    });
  });
  afterAll(async () => {
    agent.destroy();
    await app.close();
  });

  it(`holds for ${RUNS} generated and mutated payloads`, async () => {
    let valid = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ arbitrary: mutatedSample, weight: 3 }, { arbitrary: rawText, weight: 1 }),
        async (text) => {
          const before = handled;
          const res = await post(text);
          expect(DOCUMENTED.has(res.status)).toBe(true);
          expect(res.body).not.toMatch(/\n\s+at /);
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const shouldHandle = parsed !== undefined && isValid(parsed);
          if (shouldHandle) valid++;
          expect(handled - before).toBe(shouldHandle ? 1 : 0);
          expect(res.status === 200).toBe(shouldHandle);
        },
      ),
      { numRuns: RUNS },
    );
    expect(handled).toBe(valid);
    expect(valid).toBeGreaterThan(100); // the generators reach valid payloads too
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 120_000);
});
