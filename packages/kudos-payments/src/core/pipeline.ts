import { isRecord, type KudosNotificationMessage, traced } from 'kudos-core';
import type { WebhookRequest } from './body.js';
import { rememberChainAnswer } from './chain-tx.js';
import type { KudosConfirmer } from './confirm.js';
import type { KudosDedupeStore } from './dedupe.js';
import { isRefusal, KudosNotificationError, type KudosRefusal } from './errors.js';
import { recordFailure } from './observe.js';
import { parseSanitized, sanitize } from './parse.js';
import { asHandlerError, type ProcessOutcome, processOnce } from './process-once.js';
import type { KudosNotification, KudosNotificationSource } from './types.js';

/** The app's handler: a delivery's request, or undefined for `redrive()` and `reconcileChain()`. */
export type KudosNotificationHandler = (
  notification: KudosNotification,
  req: WebhookRequest | undefined,
) => void | Promise<void>;

/** Longest a done key is remembered for a notification the confirmer did not confirm: an hour. */
const UNCONFIRMED_DONE_TTL_MS = 3600 * 1000;

/** What every path into the receiver shares: the store, its timings, the confirmer and the handler. */
export interface PipelineSettings {
  store: KudosDedupeStore;
  /** The receiver's clock (epoch ms). */
  now: () => number;
  dedupeTtlMs: number;
  leaseMs: number;
  handlerTimeoutMs: number;
  denom: string | undefined;
  confirm: KudosConfirmer | undefined;
  onNotification: KudosNotificationHandler;
  report: (error: KudosRefusal, req: WebhookRequest | undefined) => void;
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
  /** The trace of this notification, when someone subscribes (filled in here). */
  message?: KudosNotificationMessage | undefined;
  /**
   * Names the payer (`tx.fromId`) once the key is claimed, before the confirmation: a duplicate
   * costs no lookup. Rejecting fails this notification alone (503, nothing kept: not confirmed yet).
   */
  namePayer?: () => Promise<string | null>;
  /** The chain's answer for the transaction already read (the chain reconcile's search), for the confirmer of that node. */
  chainAnswer?: { lcd: string; body: unknown };
}

/** Confirms a notification as a traced operation (`passport-kudos:confirm`). */
function confirmNotification(notification: KudosNotification, confirm: KudosConfirmer): Promise<void> {
  return traced(
    'confirm',
    () => ({ operation: 'confirm', txHash: notification.tx.txHash }),
    async (message) => {
      await applyConfirmation(notification, confirm);
      if (!message) return;
      message.outcome = notification.confirmed ? 'confirmed' : 'unconfirmed';
      if (notification.confirmed) message.received = notification.received.toString();
      if (notification.confirmationReason) message.reason = notification.confirmationReason;
    },
  );
}

/**
 * Applies the confirmer's verdict to the notification. A notification the chain contradicts decides
 * nothing: refused (`unconfirmed`), so that it is kept as what it is and its key stays open.
 */
async function applyConfirmation(notification: KudosNotification, confirm: KudosConfirmer): Promise<void> {
  // Called inside an async function, so a confirmer that throws synchronously is caught too.
  const result = await (async () => confirm(notification))().catch((cause: unknown) => {
    throw isRefusal(cause)
      ? cause
      : new KudosNotificationError('confirmation_unavailable', {
          message: 'confirmation failed; retry later',
          cause,
        });
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
  if (typeof verdict.blockTime === 'number' && Number.isFinite(verdict.blockTime)) {
    notification.blockTime = verdict.blockTime;
  }
  if (!notification.confirmed && Array.isArray(verdict.paidTo) && verdict.paidTo.length > 0) {
    notification.paidTo = verdict.paidTo.filter((a): a is string => typeof a === 'string');
  }
  if (!notification.confirmed && verdict.contradicted === true) {
    throw new KudosNotificationError('unconfirmed', {
      message: `the chain contradicts this notification (${verdict.reason ?? 'no reason given'}); kept, not processed: the real delivery, reconcileChain() or redrive() decides its transaction`,
    });
  }
}

/**
 * The one way a notification is processed, whether a delivery brought it, `redrive()` runs it again
 * or `reconcileChain()` read it from the chain: validate, then once per key (`txHash:status`) confirm and call the
 * handler, keeping it in the store until that succeeded.
 */
export async function runNotification(
  settings: PipelineSettings,
  input: PipelineInput,
): Promise<{ notification: KudosNotification; outcome: ProcessOutcome }> {
  const { message } = input;
  let notification: KudosNotification | undefined;
  try {
    const parsed = parse(settings, input);
    notification = parsed.notification;
    const outcome = await processNotification(settings, input, notification, parsed.body);
    if (message) {
      message.outcome = outcome;
      message.paid = notification.paid;
      message.received = notification.received.toString();
    }
    return { notification, outcome };
  } catch (error) {
    // Kept for redrive() when its handler or confirmation failed after it was trusted (processOnce's rule).
    const keeps = settings.store.keep !== undefined && (input.trusted || notification?.confirmed === true);
    recordFailure(message, asHandlerError(error), keeps);
    throw error;
  }
}

/** The notification of a body (validated, normalized, in the receiver's denomination), and the sanitized body kept with it. */
function parse(
  settings: PipelineSettings,
  input: PipelineInput,
): { notification: KudosNotification; body: unknown } {
  const body = sanitize(input.body); // once: the copy is both parsed and kept
  const notification = parseSanitized(body, input.source);
  if (input.message) {
    input.message.key = notification.key;
    input.message.txHash = notification.tx.txHash;
    input.message.txStatus = notification.tx.status;
  }
  if (settings.denom !== undefined && notification.tx.amount.denom !== settings.denom) {
    throw new KudosNotificationError('unexpected_denom', {
      message: `"tx.amount.denom" must be "${settings.denom}"`,
      path: 'tx.amount.denom',
    });
  }
  return { notification, body };
}

/** The payer named by `name`, in the notification and in the body kept for `redrive()`. */
async function namePayer(
  notification: KudosNotification,
  body: unknown,
  name: () => Promise<string | null>,
): Promise<void> {
  const fromId = await name().catch((cause: unknown) => {
    throw new KudosNotificationError('confirmation_unavailable', {
      message: `the payer could not be named: ${cause instanceof Error ? cause.message : 'the lookup failed'}`,
      cause,
    });
  });
  notification.tx.fromId = fromId;
  if (isRecord(body) && isRecord(body.tx)) body.tx.fromId = fromId;
}

/** Once per key: confirm, keep, call the handler (processOnce). */
function processNotification(
  settings: PipelineSettings,
  input: PipelineInput,
  notification: KudosNotification,
  body: unknown,
): Promise<ProcessOutcome> {
  return processOnce(
    settings.store,
    notification.key,
    {
      leaseMs: settings.leaseMs,
      dedupeTtlMs: settings.dedupeTtlMs,
      handlerTimeoutMs: settings.handlerTimeoutMs,
      report: (error) => settings.report(error, input.req),
      trusted: input.trusted,
      // Only a receiver with a confirmer can verify: without one, an unauthenticated notification
      // is all it will ever know, and closes its key as before (run such a receiver only behind a secret).
      ...(settings.confirm ? { trustedAfter: () => notification.confirmed } : {}),
      // A notification the confirmer found paying the shop nothing (another receiver, a hash of
      // someone else's payment offered on a return page) keeps its key an hour at most.
      doneTtlMs: () =>
        settings.confirm && !notification.confirmed && notification.paidTo === undefined
          ? Math.min(settings.dedupeTtlMs, UNCONFIRMED_DONE_TTL_MS)
          : settings.dedupeTtlMs,
      keep: {
        key: notification.key,
        txHash: notification.tx.txHash,
        status: notification.tx.status,
        receivedAt: input.receivedAt ?? settings.now(),
        body,
        source: input.source,
        trusted: input.trusted,
      },
    },
    async (progress) => {
      if (input.namePayer) await namePayer(notification, body, input.namePayer);
      if (input.chainAnswer) rememberChainAnswer(notification, input.chainAnswer.lcd, input.chainAnswer.body);
      if (settings.confirm) await confirmNotification(notification, settings.confirm);
      if (notification.confirmed) await progress.verified();
      await settings.onNotification(notification, input.req);
    },
  );
}
