import type { WebhookRequest } from './body.js';
import type { KudosConfirmer } from './confirm.js';
import type { KudosDedupeStore } from './dedupe.js';
import { KudosWebhookError } from './errors.js';
import { parseSanitized, sanitize } from './parse.js';
import { type ProcessOutcome, processOnce } from './process-once.js';
import type { KudosNotification, KudosNotificationSource } from './types.js';

/** The app's handler: a delivery's request, or undefined for `redrive()` and `reconcile()`. */
export type KudosNotificationHandler = (
  notification: KudosNotification,
  req: WebhookRequest | undefined,
) => void | Promise<void>;

/** What every path into the receiver shares: the store, its timings, the confirmer and the handler. */
export interface PipelineSettings {
  store: KudosDedupeStore;
  ttlMs: number;
  leaseMs: number;
  timeoutMs: number;
  denom: string | undefined;
  confirm: KudosConfirmer | undefined;
  onNotification: KudosNotificationHandler;
  report: (error: KudosWebhookError, req: WebhookRequest | undefined) => void;
}

/** One notification to run: its body as received, where it came from, and whether it is trusted. */
interface PipelineInput {
  body: unknown;
  source: KudosNotificationSource;
  /** Its secret was checked, or it was fetched from the service itself. */
  trusted: boolean;
  req: WebhookRequest | undefined;
  /** When it first arrived (a redrive keeps the first delivery's time). */
  receivedAt?: number;
}

async function confirmNotification(notification: KudosNotification, confirm: KudosConfirmer): Promise<void> {
  // Called inside an async function, so a confirmer that throws synchronously is caught too.
  const result = await (async () => confirm(notification))().catch((cause: unknown) => {
    throw cause instanceof KudosWebhookError
      ? cause
      : new KudosWebhookError(
          'confirmation_unavailable',
          'confirmation failed; retry later',
          undefined,
          cause,
        );
  });
  const verdict = typeof result === 'boolean' ? { confirmed: result } : result;
  notification.confirmed = verdict.confirmed === true;
  if (!notification.confirmed && verdict.reason) notification.confirmationReason = verdict.reason;
  notification.paid = notification.confirmed && notification.tx.status === 'success';
  notification.received =
    notification.confirmed && typeof verdict.received === 'bigint' && verdict.received > 0n
      ? verdict.received
      : 0n;
  if (typeof verdict.memo === 'string') notification.memo = verdict.memo;
}

/**
 * The one way a notification is processed, whether a delivery brought it, `redrive()` runs it again
 * or `reconcile()` fetched it: validate, then once per key (`txHash:status`) confirm and call the
 * handler, keeping it in the store until that succeeded.
 */
export async function runNotification(
  settings: PipelineSettings,
  input: PipelineInput,
): Promise<{ notification: KudosNotification; outcome: ProcessOutcome }> {
  const body = sanitize(input.body); // once: the copy is both parsed and kept
  const notification = parseSanitized(body, input.source);
  if (settings.denom !== undefined && notification.tx.amount.denom !== settings.denom) {
    throw new KudosWebhookError(
      'unexpected_denom',
      `"tx.amount.denom" must be "${settings.denom}"`,
      'tx.amount.denom',
    );
  }
  const outcome = await processOnce(
    settings.store,
    notification.key,
    {
      leaseMs: settings.leaseMs,
      ttlMs: settings.ttlMs,
      timeoutMs: settings.timeoutMs,
      report: (error) => settings.report(error, input.req),
      trusted: input.trusted,
      trustedAfter: () => notification.confirmed,
      keep: {
        key: notification.key,
        txHash: notification.tx.txHash,
        status: notification.tx.status,
        receivedAt: input.receivedAt ?? Date.now(),
        body,
        source: input.source,
        trusted: input.trusted,
      },
    },
    async (progress) => {
      if (settings.confirm) await confirmNotification(notification, settings.confirm);
      if (notification.confirmed) await progress.verified();
      await settings.onNotification(notification, input.req);
    },
  );
  return { notification, outcome };
}
