import { KudosWebhookError } from '../errors.js';
import type { KudosOrderStore, KudosOrderStoreWrite } from './order-store.js';
import {
  type KudosOrder,
  type KudosPaymentRecord,
  readOrder,
  readPayment,
  writeOrder,
  writePayment,
} from './records.js';

/** How often a compare-and-set is tried again after another writer changed the record first. */
const MAX_TRIES = 8;

const orderId = (reference: string) => `order:${reference}`;
const paymentId = (txHash: string) => `payment:${txHash}`;

function storeError(message: string, cause?: unknown): KudosWebhookError {
  return new KudosWebhookError('store_unavailable', message, undefined, cause);
}

/** Calls a store method inside an async function, so a synchronous throw becomes a rejection too. */
async function call<T>(method: () => Promise<T>): Promise<T> {
  try {
    return await method();
  } catch (cause) {
    throw cause instanceof KudosWebhookError
      ? cause
      : storeError('the order store is unavailable; retry later', cause);
  }
}

/**
 * The orders and payment decisions of `kudosPayments()` in a {@link KudosOrderStore}: typed reads
 * and writes, each change a compare-and-set, so that an order moves only forward and a payment is
 * decided once, whichever instance or path gets there first.
 */
export class Ledger {
  constructor(
    private readonly store: KudosOrderStore,
    /** How long an order is kept past its expiry, and a decided payment: the dedupe TTL. */
    private readonly retentionMs: number,
    private readonly now: () => number,
  ) {}

  private orderWrite(order: KudosOrder): KudosOrderStoreWrite {
    return { ttlMs: Math.max(0, order.expiresAt - this.now()) + this.retentionMs, listed: false };
  }

  /** An exception the app has not acknowledged is kept and listed with no end; anything else expires. */
  private paymentWrite(record: KudosPaymentRecord): KudosOrderStoreWrite {
    const open = record.outcome !== 'credited' && !record.acknowledged;
    return { ttlMs: open ? null : this.retentionMs, listed: open };
  }

  async createOrder(order: KudosOrder): Promise<void> {
    const saved = await call(() =>
      this.store.insert(orderId(order.reference), writeOrder(order), this.orderWrite(order)),
    );
    if (!saved) throw storeError('an order with this reference exists already');
  }

  async order(reference: string): Promise<{ order: KudosOrder; version: number } | undefined> {
    const found = await call(() => this.store.read(orderId(reference)));
    const order = found && readOrder(found.value);
    return order && { order, version: found.version };
  }

  /**
   * Changes the record under `id` by `change` (which answers the new one, or undefined to leave it),
   * read and written again until no other writer came between; answers the record as it is after.
   */
  private async change<T>(
    id: string,
    read: (text: string) => T | undefined,
    write: (value: T) => [string, KudosOrderStoreWrite],
    change: (value: T) => T | undefined,
  ): Promise<T | undefined> {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const found = await call(() => this.store.read(id));
      const value = found && read(found.value);
      if (!found || value === undefined) return undefined;
      const next = change(value);
      if (next === undefined) return value;
      const [text, options] = write(next);
      if (await call(() => this.store.replace(id, found.version, text, options))) return next;
    }
    throw storeError('the record kept changing under every try; retry later');
  }

  private changeOrder(reference: string, change: (order: KudosOrder) => KudosOrder | undefined) {
    return this.change(orderId(reference), readOrder, (o) => [writeOrder(o), this.orderWrite(o)], change);
  }

  /** Changes a payment record by `change`, as orders are changed. */
  changePayment(txHash: string, change: (record: KudosPaymentRecord) => KudosPaymentRecord | undefined) {
    return this.change(
      paymentId(txHash),
      readPayment,
      (r) => [writePayment(r), this.paymentWrite(r)],
      change,
    );
  }

  /** Moves an open order to `paid` by this payment; answers the order as it is after (paid by whom). */
  credit(payment: KudosPaymentRecord, reference: string): Promise<KudosOrder | undefined> {
    return this.changeOrder(reference, (order) =>
      order.status !== 'open'
        ? undefined
        : {
            ...order,
            status: 'paid',
            payment: {
              txHash: payment.txHash,
              received: payment.received,
              payer: payment.payer,
              paidAt: this.now(),
            },
          },
    );
  }

  /** Moves an order paid by `txHash` to `fulfilled`: the app was told. */
  fulfil(reference: string, txHash: string): Promise<KudosOrder | undefined> {
    return this.changeOrder(reference, (order) =>
      order.status === 'paid' && order.payment?.txHash === txHash
        ? { ...order, status: 'fulfilled' }
        : undefined,
    );
  }

  async payment(txHash: string): Promise<{ record: KudosPaymentRecord; version: number } | undefined> {
    const found = await call(() => this.store.read(paymentId(txHash)));
    const record = found && readPayment(found.value);
    return record && { record, version: found.version };
  }

  /** Saves a decision unless one was made first: answers the one that stands. */
  async decide(record: KudosPaymentRecord): Promise<KudosPaymentRecord> {
    const id = paymentId(record.txHash);
    if (await call(() => this.store.insert(id, writePayment(record), this.paymentWrite(record))))
      return record;
    const first = await this.payment(record.txHash);
    if (!first) throw storeError('the payment record could not be read back; retry later');
    return first.record;
  }

  /** The exceptions not acknowledged yet, oldest first. */
  async exceptions(limit: number): Promise<KudosPaymentRecord[]> {
    const listed = await call(() => this.store.listed(limit));
    return listed.flatMap(({ value }) => {
      const record = readPayment(value);
      return record ? [record] : [];
    });
  }
}
