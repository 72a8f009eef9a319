import { storeUnavailable } from 'kudos-core';
import { isRefusal, type KudosRefusal } from '../core/errors.js';
import type { KudosOrderStore, KudosOrderStoreChange } from './order-store.js';
import {
  type KudosOrder,
  type KudosPaymentRecord,
  readOrder,
  readPayment,
  readRetoldAt,
  writeOrder,
  writePayment,
} from './records.js';

/** How often a compare-and-set is tried again after another writer changed the record first. */
export const MAX_TRIES = 8;

/** Most orders a ledger remembers as it wrote them (see `Ledger.known`): about 4 MB. */
const MAX_KNOWN = 10_000;

/** How long the orders told are gathered before they are marked `fulfilled` in one write. */
const FULFIL_BATCH_MS = 50;
/** The first wait before a `fulfilled` mark the store refused is tried again, and the longest. */
const FULFIL_RETRY_MS = 250;
const FULFIL_RETRY_MAX_MS = 30_000;

const orderId = (reference: string) => `order:${reference}`;
/** The kind of every payment record's ID: what `listedCount()` counts the exceptions by. */
const PAYMENT_KIND = 'payment:';
const paymentId = (txHash: string) => `${PAYMENT_KIND}${txHash}`;

/** Longest part of a store's own reason that a message carries. */
const MAX_REASON = 300;

/**
 * A store failure as the receiver answers it: 503, retry later, with the store's own reason (a Redis
 * whose policy may evict, no answer from it, a locked SQLite file), which names no secret.
 */
function storeFailure(cause: unknown): KudosRefusal {
  if (isRefusal(cause)) return cause;
  const reason =
    cause instanceof Error && cause.message !== '' ? cause.message.slice(0, MAX_REASON) : 'failed';
  return storeUnavailable(`the order store is unavailable (${reason}); retry later`, cause);
}

/**
 * Calls a store method, its synchronous throw and its rejection alike becoming `store_unavailable`
 * (not an async function: one promise on the hot path, not three).
 */
function call<T>(method: () => Promise<T>): Promise<T> {
  try {
    return method().catch((cause: unknown) => Promise.reject(storeFailure(cause)));
  } catch (cause) {
    return Promise.reject(storeFailure(cause));
  }
}

/** A record read with the version it was read at. */
export interface Versioned<T> {
  value: T;
  version: number;
}

/**
 * The orders and payment decisions of `kudosPayments()` in a {@link KudosOrderStore}: typed reads,
 * and writes that are each one compare-and-set, so that an order moves only forward and a payment
 * is decided once, whichever instance or path gets there first.
 */
export class Ledger {
  /** How long an order is kept past its expiry, and a decided payment: the dedupe TTL. */
  private readonly dedupeTtlMs: number;
  /** How long an exception is listed after its decision; null: until acknowledged. */
  private readonly exceptionTtlMs: number | null;
  /** Below this (nanokudos), a payment that matches no order is recorded and neither listed nor told. */
  private readonly minExceptionUnits: bigint;

  constructor(
    private readonly store: KudosOrderStore,
    keep: { dedupeTtlMs: number; exceptionTtlMs: number | null; minExceptionUnits: bigint },
    private readonly now: () => number,
  ) {
    this.dedupeTtlMs = keep.dedupeTtlMs;
    this.exceptionTtlMs = keep.exceptionTtlMs;
    this.minExceptionUnits = keep.minExceptionUnits;
  }

  /**
   * Whether an exception is dust: a payment below `minExceptionAmount` that credits no order, whatever
   * it names (no order, an unknown one, or a copy of the memo of a paid, expired or open order: memos
   * are public on the chain). Anyone can pay a shop's wallet; such a payment is decided and kept (a
   * replay changes nothing) but never listed, counted by `status()` or told to `onException`. Money
   * that went elsewhere (`not_to_wallet`, a wrong `wallet`) is always told.
   */
  quiet(record: KudosPaymentRecord): boolean {
    if (record.outcome === 'credited' || record.outcome === 'not_to_wallet') return false;
    return record.received < this.minExceptionUnits;
  }

  /**
   * An order's change. A `paid` order is listed until its `fulfilled` mark lands (in the same write
   * that credits it: no extra round trip), so that `unfulfilled()` finds one whose process died
   * between `onPaid` and that mark.
   */
  private orderChange(order: KudosOrder, version: number | null, retoldAt?: number): KudosOrderStoreChange {
    const ttlMs = Math.max(0, order.expiresAt - this.now()) + this.dedupeTtlMs;
    const value = writeOrder(order, retoldAt);
    return { id: orderId(order.reference), version, value, ttlMs, listed: order.status === 'paid' };
  }

  /**
   * An exception the app has not acknowledged is listed until `exceptionTtlMs` after its decision
   * (every rewrite keeps that end: telling it never extends it); anything else is kept for the
   * dedupe TTL.
   */
  private paymentChange(record: KudosPaymentRecord, version: number | null): KudosOrderStoreChange {
    const open = record.outcome !== 'credited' && !record.acknowledged && !this.quiet(record);
    const value = writePayment(record);
    return { id: paymentId(record.txHash), version, value, ttlMs: this.ttlOf(record, open), listed: open };
  }

  private ttlOf(record: KudosPaymentRecord, open: boolean): number | null {
    if (!open) return this.dedupeTtlMs;
    if (this.exceptionTtlMs === null) return null;
    return Math.max(1, record.decidedAt + this.exceptionTtlMs - this.now());
  }

  private write(changes: KudosOrderStoreChange[]): Promise<boolean> {
    return call(() => this.store.write(changes));
  }

  private async read<T>(
    id: string,
    parse: (text: string) => T | undefined,
  ): Promise<Versioned<T> | undefined> {
    const found = await call(() => this.store.read(id));
    const value = found && parse(found.value);
    return found && value !== undefined ? { value, version: found.version } : undefined;
  }

  async createOrder(order: KudosOrder): Promise<void> {
    if (!(await this.write([this.orderChange(order, null)]))) {
      throw storeUnavailable('an order with this reference exists already');
    }
    this.remember({ value: order, version: 1 });
  }

  /**
   * Open orders this process wrote last, at the version it wrote (at most {@link MAX_KNOWN}): a
   * payment's decision starts from one without reading the store. Safe however stale: the decision's
   * write is a compare-and-set at that version, and a refused one forgets it and reads the store.
   */
  private readonly known = new Map<string, Versioned<KudosOrder>>();

  private remember(order: Versioned<KudosOrder>): void {
    const { reference } = order.value;
    this.known.delete(reference); // the newest last: the Map's order is the eviction order
    this.known.set(reference, order);
    if (this.known.size > MAX_KNOWN) this.known.delete(this.known.keys().next().value as string);
  }

  /** The order to decide a payment from: as this process last wrote it, else as the store has it. */
  async orderToDecide(reference: string): Promise<Versioned<KudosOrder> | undefined> {
    return this.known.get(reference) ?? this.order(reference);
  }

  order(reference: string): Promise<Versioned<KudosOrder> | undefined> {
    return this.read(orderId(reference), readOrder);
  }

  payment(txHash: string): Promise<Versioned<KudosPaymentRecord> | undefined> {
    return this.read(paymentId(txHash), readPayment);
  }

  /**
   * Saves a decision, unless the transaction was decided first or `order` changed since it was read:
   * then undefined (read again and decide again). A credit moves the open order to `paid` by this
   * payment in the same write, and answers it.
   */
  async decide(
    record: KudosPaymentRecord,
    order: Versioned<KudosOrder> | undefined,
  ): Promise<{ order?: Versioned<KudosOrder> } | undefined> {
    const payment = this.paymentChange(record, null);
    if (record.outcome !== 'credited' || order?.value.status !== 'open') {
      return (await this.writeWithRiders([payment])) ? {} : undefined;
    }
    const paid: KudosOrder = {
      ...order.value,
      status: 'paid',
      payment: { txHash: record.txHash, received: record.received, payer: record.payer, paidAt: this.now() },
    };
    const saved = await this.writeWithRiders([this.orderChange(paid, order.version), payment]);
    this.known.delete(paid.reference); // paid: no later payment is decided from it as open
    return saved ? { order: { value: paid, version: order.version + 1 } } : undefined;
  }

  /**
   * Writes `changes` with the `fulfilled` marks waiting for their batch riding along: one commit for
   * both under load (a SQLite commit is a disk sync; the marks would need one of their own). When the
   * write with them is refused (a mark's order moved on) or fails, `changes` are written alone and the
   * marks go back to their batch.
   */
  private async writeWithRiders(changes: KudosOrderStoreChange[]): Promise<boolean> {
    const riders = this.toFulfil;
    if (riders.length === 0) return this.write(changes);
    this.toFulfil = [];
    const together = await this.write([...changes, ...riders]).catch(() => undefined);
    if (together === true) return true;
    this.toFulfil.push(...riders);
    this.fulfilTimer ??= setTimeout(() => void this.flushFulfilled(), FULFIL_BATCH_MS);
    this.fulfilTimer.unref();
    return this.write(changes);
  }

  /**
   * Moves an order paid by a payment to `fulfilled` (the app was told), at the version read, soon:
   * the orders told within {@link FULFIL_BATCH_MS} are written together, one commit for all (under
   * load, one per payment would double what the store writes). Until then a replay of the same
   * payment would tell the app again, as it would after a crash between `onPaid` and this write:
   * at least once, which the app's `onPaid` is written for.
   */
  fulfil(order: Versioned<KudosOrder>): void {
    this.toFulfil.push(this.orderChange({ ...order.value, status: 'fulfilled' }, order.version));
    this.fulfilTimer ??= setTimeout(() => void this.flushFulfilled(), FULFIL_BATCH_MS);
    this.fulfilTimer.unref();
  }

  private toFulfil: KudosOrderStoreChange[] = [];
  private fulfilTimer: NodeJS.Timeout | undefined;
  /** Flushes in a row whose writes the store refused: the next retry waits longer. */
  private fulfilFailures = 0;

  /**
   * Writes the orders told since the last flush: together, or each alone when one changed meanwhile
   * (an order that moved on is left as it is). One the store could not take (a full Redis, a locked
   * file) is tried again later, 250 ms, then twice as long each time up to 30 s, until it lands: an
   * order whose `onPaid` returned is never left `paid`.
   */
  async flushFulfilled(): Promise<void> {
    clearTimeout(this.fulfilTimer);
    this.fulfilTimer = undefined;
    const changes = this.toFulfil;
    this.toFulfil = [];
    if (changes.length === 0) return;
    const together = await this.write(changes).catch(() => undefined);
    if (together === true) {
      this.fulfilFailures = 0;
      return;
    }
    const refused: KudosOrderStoreChange[] = [];
    if (together === false && changes.length === 1) return; // the order moved on
    await Promise.all(
      changes.map((change) =>
        this.write([change]).catch(() => {
          refused.push(change);
        }),
      ),
    );
    if (refused.length === 0) {
      this.fulfilFailures = 0;
      return;
    }
    this.toFulfil.push(...refused);
    const wait = Math.min(FULFIL_RETRY_MAX_MS, FULFIL_RETRY_MS * 2 ** this.fulfilFailures);
    this.fulfilFailures++;
    clearTimeout(this.fulfilTimer);
    this.fulfilTimer = setTimeout(() => void this.flushFulfilled(), wait);
    this.fulfilTimer.unref();
  }

  /**
   * Changes a payment record by `change` (which answers the new one, or undefined to leave it), read
   * and written again until no other writer came between; answers the record as it is after.
   */
  async changePayment(
    txHash: string,
    change: (record: KudosPaymentRecord) => KudosPaymentRecord | undefined,
  ): Promise<KudosPaymentRecord | undefined> {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const found = await this.payment(txHash);
      if (!found) return undefined;
      const next = change(found.value);
      if (!next) return found.value;
      if (await this.write([this.paymentChange(next, found.version)])) return next;
    }
    throw storeUnavailable('the payment record kept changing under every try; retry later');
  }

  /** Rejects when the order store says it cannot write now (see `KudosOrderStore.health`). */
  health(): Promise<void> {
    return call(async () => this.store.health?.());
  }

  /**
   * Paid orders whose `fulfilled` mark never landed, paid (and, when told again already, claimed)
   * before `before`: the app may never have been told (see {@link claimRetelling}).
   */
  async unfulfilled(limit: number, before: number): Promise<Array<Versioned<KudosOrder>>> {
    const listed = await call(() => this.store.listed(limit));
    const found: Array<Versioned<KudosOrder>> = [];
    for (const { id, value } of listed) {
      const order = id.startsWith('order:') ? readOrder(value) : undefined;
      if (order?.status !== 'paid' || !order.payment || order.payment.paidAt >= before) continue;
      if ((readRetoldAt(value) ?? 0) >= before) continue; // another redrive claimed it lately
      const current = await this.read(id, (text) => text); // its version: listed() gives none
      if (current?.value === value) found.push({ value: order, version: current.version });
    }
    return found;
  }

  /**
   * Claims a paid order found by {@link unfulfilled} to tell the app again (compare-and-set: one
   * instance's redrive wins); answers it at its new version, or undefined when another came first.
   */
  async claimRetelling(order: Versioned<KudosOrder>): Promise<Versioned<KudosOrder> | undefined> {
    const claimed = this.orderChange(order.value, order.version, this.now());
    return (await this.write([claimed])) ? { value: order.value, version: order.version + 1 } : undefined;
  }

  /**
   * How many exceptions wait (listed payment records: neither credited, acknowledged nor dust) and
   * since when the oldest does: by the store's index when it has `listedCount()` (a bounded number of
   * reads whatever their number), else by reading them.
   */
  async exceptionFigures(limit: number): Promise<{ count: number; oldestAt: number | null }> {
    const listedCount = this.store.listedCount?.bind(this.store);
    if (listedCount) {
      const { count, oldestListedAt } = await call(() => listedCount(PAYMENT_KIND));
      return { count, oldestAt: oldestListedAt };
    }
    const waiting = (await this.exceptions(limit)).filter((e) => e.outcome !== 'credited');
    const oldestAt = waiting.reduce<number | null>(
      (min, e) => (min === null ? e.decidedAt : Math.min(min, e.decidedAt)),
      null,
    );
    return { count: waiting.length, oldestAt };
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
