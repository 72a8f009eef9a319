import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { readNotificationBody, type WebhookRequest } from '../../packages/kudos-payments/src/core/body.js';

/** The sample notification of docs/kudos-service.md#notifications, as a fresh object each call. */
export function sampleNotification(): { tx: Record<string, unknown>; metadata: Record<string, unknown> } {
  return JSON.parse(readFileSync(new URL('../fixtures/notifications/sample.json', import.meta.url), 'utf8'));
}

/** The sample with `tx` fields replaced (undefined deletes one). */
export function withTx(fields: Record<string, unknown>): {
  tx: Record<string, unknown>;
  metadata: Record<string, unknown>;
} {
  const body = sampleNotification();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete body.tx[key];
    else body.tx[key] = value;
  }
  return body;
}

/** The sample with another `tx.amount.amount`. */
export function withAmount(amount: unknown): ReturnType<typeof sampleNotification> {
  return withTx({ amount: { amount, denom: 'nanokudos' } });
}

/** A notification body as the receiver reads it from a request no body parser touched. */
export function readBodyText(text: string | Buffer, contentType = 'application/json'): Promise<unknown> {
  const req = Object.assign(Readable.from([Buffer.from(text)]), { headers: { 'content-type': contentType } });
  return readNotificationBody(req as unknown as WebhookRequest, 1024 * 1024);
}
