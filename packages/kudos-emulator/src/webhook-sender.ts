import http from 'node:http';
import https from 'node:https';
import { MIN_WEBHOOK_SECRET_LENGTH, redactWebhookURL } from 'kudos-core';
import type { KudosTxStatus } from 'kudos-core/chain';
import { deliveryURL } from './emulator-options.js';
import { notificationBody } from './model/tx-record.js';
import type { EmulatorState } from './state.js';
import type { EmulatorTransaction } from './transaction.js';

/** One attempt to deliver one notification. */
export interface WebhookDelivery {
  /** This attempt's ID (for `resend`). */
  id: number;
  /** Same for every attempt of one notification. */
  notificationId: number;
  /** Where it was sent, without its secret (no credentials; `token` and similar parameters redacted). */
  url: string;
  agentId: string;
  txHash: string;
  /** `tx.status` in the notification. */
  txStatus: KudosTxStatus;
  /** 1 for the first attempt. */
  attempt: number;
  /** HTTP status the agent answered; undefined when it did not answer. */
  responseStatus: number | undefined;
  /** Why the attempt failed without an answer (e.g. `ECONNREFUSED`, `timeout`). */
  error: string | undefined;
  /** Epoch milliseconds (real time) of the attempt. */
  at: number;
  body: string;
  /** Delay before the next attempt; undefined when this one succeeded or was the last. */
  retryInMs: number | undefined;
}

/**
 * A notification still to be delivered: before each attempt, and while it waits for a retry. The
 * state file keeps these, so a restarted emulator resumes them (at least once: an attempt cut off by
 * a crash is made again).
 */
export interface OutboxEntry {
  notificationId: number;
  agentId: string;
  /** The webhook URL it goes to (with its secret: the state file is the operator's, mode 0600). */
  url: string;
  txHash: string;
  txStatus: KudosTxStatus;
  body: string;
  attempt: number;
  /** When, epoch milliseconds (real time). */
  dueAt: number;
}

/** Test switches for the shape of deliveries (docs/kudos-service.md#notifications shows no ordering or retry rules). */
export interface WebhookMode {
  /** Send every notification twice, at once. */
  duplicate: boolean;
  /** Also send a `pending` notification when the payment is created, before the final one. */
  pendingFirst: boolean;
  /** Send the final status first, then a `pending` notification. */
  outOfOrder: boolean;
}

function describeFailure(error: Error): string {
  return 'code' in error && typeof error.code === 'string' ? error.code : error.message;
}

/**
 * A saved outbox entry as the log has it: the log (appended first) may hold an attempt the file's
 * outbox (rewritten after) does not know yet, when the emulator was killed between the two writes.
 * Then the entry follows the log: done (answered, or given up) or its next attempt at its time.
 */
function afterLog(entry: OutboxEntry, last: WebhookDelivery | undefined): OutboxEntry | undefined {
  if (!last || last.attempt < entry.attempt) return entry;
  if (last.retryInMs === undefined) return undefined;
  return { ...entry, attempt: last.attempt + 1, dueAt: last.at + last.retryInMs };
}

/**
 * Sends notifications to agents' webhooks. Non-2xx answers and failures are retried with a
 * doubling delay (`retryDelayMs`, then 2x, 4x...) up to `attempts` attempts in all.
 */
export class WebhookSender {
  readonly deliveries: WebhookDelivery[] = [];
  readonly mode: WebhookMode = { duplicate: false, pendingFirst: false, outOfOrder: false };
  private nextId = 1;
  private nextDeliveryId = 1;
  /** The highest attempt number recorded for each notification, for a resend's next attempt. */
  private readonly lastAttempt = new Map<number, number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Notifications not yet delivered nor given up, by notification id. */
  private readonly outbox = new Map<number, OutboxEntry>();

  constructor(
    private readonly state: EmulatorState,
    private readonly timers: Set<NodeJS.Timeout>,
  ) {}

  /** Reacts to a transaction event: decides which notifications to send, per the mode. */
  onTransaction(tx: EmulatorTransaction, event: 'created' | 'settled'): void {
    const agentId = tx.request.via;
    const agent = agentId ? this.state.agents.get(agentId) : undefined;
    const url = deliveryURL(agent);
    if (!agentId || !url) return; // without via, or without a webhook set up: no notification (docs/kudos-service.md#notifications)
    // The payer's browser never posted the metadata: the service has nothing to notify with (the
    // emulator's reading: a shop must expect such a payment to come by no notification).
    if (tx.metadataPosted === false) return;
    const statuses: KudosTxStatus[] =
      event === 'created'
        ? this.mode.pendingFirst && !this.mode.outOfOrder
          ? ['pending']
          : []
        : this.mode.outOfOrder
          ? [tx.status, 'pending']
          : [tx.status];
    for (const status of statuses) {
      const body = JSON.stringify(notificationBody(tx, status, this.state.options.multiSendAmounts));
      const copies = this.mode.duplicate ? 2 : 1;
      for (let i = 0; i < copies; i++)
        this.track(this.deliver(agentId, url, tx.txHash, status, body, this.nextId++, 1));
    }
  }

  /**
   * Sends the notification of delivery `id` again, as a redelivery (same body and notification,
   * the next attempt number, the usual retries) to the agent's current webhook. Answers false when
   * there is no such delivery or the agent has no webhook any more.
   */
  resend(id: number): boolean {
    // Delivery ids are 1, 2, 3... in the order of `deliveries`, which only grows: no search.
    const delivery = Number.isSafeInteger(id) ? this.deliveries[id - 1] : undefined;
    const agent = delivery ? this.state.agents.get(delivery.agentId) : undefined;
    const url = deliveryURL(agent);
    if (!delivery || !url) return false;
    const attempt = (this.lastAttempt.get(delivery.notificationId) ?? delivery.attempt) + 1;
    this.track(
      this.deliver(
        delivery.agentId,
        url,
        delivery.txHash,
        delivery.txStatus,
        delivery.body,
        delivery.notificationId,
        attempt,
      ),
    );
    return true;
  }

  /** What the state file keeps of the sender: its deliveries, what is still to send, and its counters. */
  snapshot(): { deliveries: WebhookDelivery[]; outbox: OutboxEntry[]; nextNotificationId: number } {
    return {
      deliveries: [...this.deliveries],
      outbox: [...this.outbox.values()],
      nextNotificationId: this.nextId,
    };
  }

  /**
   * Takes back a saved sender after a restart: the deliveries so far, and every notification still
   * to send, each at its due time (at once when that passed while the emulator was down).
   */
  resume(saved: { deliveries: WebhookDelivery[]; outbox: OutboxEntry[]; nextNotificationId: number }): void {
    for (const delivery of saved.deliveries) {
      this.deliveries.push(delivery);
      this.lastAttempt.set(
        delivery.notificationId,
        Math.max(this.lastAttempt.get(delivery.notificationId) ?? 0, delivery.attempt),
      );
    }
    this.nextDeliveryId = this.deliveries.length + 1;
    this.nextId = Math.max(this.nextId, saved.nextNotificationId);
    const latest = new Map<number, WebhookDelivery>();
    for (const delivery of saved.deliveries) {
      const seen = latest.get(delivery.notificationId);
      if (!seen || delivery.attempt >= seen.attempt) latest.set(delivery.notificationId, delivery);
    }
    for (const saving of saved.outbox) {
      const entry = afterLog(saving, latest.get(saving.notificationId));
      if (!entry) continue;
      this.outbox.set(entry.notificationId, entry);
      this.track(
        this.wait(Math.max(0, entry.dueAt - Date.now())).then(() =>
          this.state.closed
            ? undefined
            : this.deliver(
                entry.agentId,
                entry.url,
                entry.txHash,
                entry.txStatus,
                entry.body,
                entry.notificationId,
                entry.attempt,
              ),
        ),
      );
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  /** Resolves when no delivery is in flight or waiting for a retry. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private track(promise: Promise<void>): void {
    this.inFlight.add(promise);
    promise.finally(() => this.inFlight.delete(promise)).catch(() => undefined);
  }

  private async deliver(
    agentId: string,
    url: string,
    hash: string,
    txStatus: KudosTxStatus,
    body: string,
    notificationId: number,
    attempt: number,
  ): Promise<void> {
    // In the outbox before the attempt: a crash during it leaves the attempt to make again.
    const entry: OutboxEntry = {
      notificationId,
      agentId,
      url,
      txHash: hash,
      txStatus,
      body,
      attempt,
      dueAt: Date.now(),
    };
    this.outbox.set(notificationId, entry);
    this.state.changed();
    const started = performance.now();
    const result = await this.post(url, body);
    if (this.state.options.verbose) {
      this.state.log(
        deliveryLine({
          agentId,
          txHash: hash,
          txStatus,
          attempt,
          ...result,
          ms: performance.now() - started,
        }),
        'debug',
      );
    }
    const ok =
      result.responseStatus !== undefined && result.responseStatus >= 200 && result.responseStatus < 300;
    const { attempts, retryDelayMs } = this.state.options.webhook;
    // `attempt` counts this notification's attempts (a resend continues the count): no scan of
    // every delivery so far, whose number only grows.
    const retryInMs = ok || attempt >= attempts ? undefined : retryDelayMs * 2 ** (attempt - 1);
    const at = Date.now();
    this.deliveries.push({
      id: this.nextDeliveryId++,
      notificationId,
      url: redactWebhookURL(url, MIN_WEBHOOK_SECRET_LENGTH),
      agentId,
      txHash: hash,
      txStatus,
      attempt,
      ...result,
      at,
      body,
      retryInMs,
    });
    this.lastAttempt.set(notificationId, Math.max(this.lastAttempt.get(notificationId) ?? 0, attempt));
    // Only the agent and the outcome are logged: the webhook URL may carry the agent's secret.
    this.state.log(
      `webhook to ${agentId} (${txStatus}) attempt ${attempt}: ${result.responseStatus ?? result.error ?? 'failed'}${
        result.responseStatus === 401
          ? " (refused as unauthenticated: does the webhook URL carry the receiver's secret, ?token=...?)"
          : ''
      }${ok ? '' : retryInMs === undefined ? `; given up after ${attempt} attempts` : `; retry in ${retryInMs} ms`}`,
      ok ? 'info' : retryInMs === undefined ? 'error' : 'warn',
    );
    if (retryInMs === undefined) this.outbox.delete(notificationId);
    else this.outbox.set(notificationId, { ...entry, attempt: attempt + 1, dueAt: at + retryInMs });
    this.state.changed();
    if (retryInMs === undefined) return;
    await this.wait(retryInMs);
    if (this.state.closed) return;
    await this.deliver(agentId, url, hash, txStatus, body, notificationId, attempt + 1);
  }

  private post(url: string, body: string): Promise<Pick<WebhookDelivery, 'responseStatus' | 'error'>> {
    const target = new URL(url);
    const transport = target.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      const req = transport.request(
        target,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'kudos-emulator-webhook/1',
          },
          timeout: this.state.options.webhook.timeoutMs,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ responseStatus: res.statusCode, error: undefined }));
          res.on('error', (error) => resolve({ responseStatus: undefined, error: describeFailure(error) }));
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
      req.on('error', (error) => resolve({ responseStatus: undefined, error: describeFailure(error) }));
      req.end(body);
    });
  }
}

/** One delivery attempt of a notification, as the sender saw its answer. */
/* The `verbose` log's line of a delivery, named as server/operation-line.ts names the operations. */
function deliveryLine(delivery: {
  agentId: string;
  txHash: string;
  txStatus: string;
  attempt: number;
  responseStatus?: number | undefined;
  error?: string | undefined;
  ms: number;
}): string {
  const status = delivery.responseStatus;
  const answered = status === undefined ? `error=${delivery.error ?? 'failed'}` : `status=${status}`;
  const outcome = status !== undefined && status >= 200 && status < 300 ? 'delivered' : 'failed';
  return `passport-kudos:notification outcome=${outcome} ${answered} ms=${Math.round(delivery.ms)} agent=${delivery.agentId} tx=${delivery.txHash} txStatus=${delivery.txStatus} attempt=${delivery.attempt}`;
}
