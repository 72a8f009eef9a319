import { UNITS_PER_TOKEN } from 'kudos-core';
import { tokensToUnits } from 'kudos-core/chain';
import type { EmulatorState } from '../state.js';
import type { EmulatorTransaction, PaymentRequest } from '../transaction.js';

/** What every emulated account's wallet starts with: 10,000 tokens (the emulator's choice). */
const STARTING_BALANCE = 10_000n * UNITS_PER_TOKEN;

/** The agent's fee of a request in units, 0 without one. */
function feeUnits(request: Pick<PaymentRequest, 'fee' | 'via'>): bigint {
  return request.fee !== undefined && request.via !== undefined ? tokensToUnits(request.fee) : 0n;
}

/** Everything a payment moves out of the payer's wallet: each recipient's amount and the agent's fee. */
export function paymentUnits(request: Pick<PaymentRequest, 'amounts' | 'fee' | 'via'>): bigint {
  return request.amounts.reduce((sum, amount) => sum + tokensToUnits(amount), feeUnits(request));
}

/** What one transaction changed in `id`'s wallet: received minus paid (a pending one holds the payer's part). */
function change(tx: EmulatorTransaction, id: string): bigint {
  const { request } = tx;
  let delta = 0n;
  // A pending payment is spent already (the chain would refuse a second one the balance cannot cover).
  if (request.from === id && tx.status !== 'fail' && tx.status !== 'timeout') delta -= paymentUnits(request);
  if (tx.status !== 'success') return delta;
  request.to.forEach((to, i) => {
    if (to === id) delta += tokensToUnits(request.amounts[i] as string);
  });
  if (request.via === id) delta += feeUnits(request);
  return delta;
}

/** What each payer ever paid out (failed payments included), counted once per transaction as they are added. */
const everPaid = new WeakMap<EmulatorState, { counted: number; byPayer: Map<string, bigint> }>();

/** The most `id` can have paid out: every payment it made, as if each succeeded. A cost of what is new. */
function paidAtMost(state: EmulatorState, id: string): bigint {
  const tally = everPaid.get(state) ?? { counted: 0, byPayer: new Map<string, bigint>() };
  everPaid.set(state, tally);
  for (const tx of state.transactionsAddedSince(tally.counted)) {
    const { from } = tx.request;
    tally.byPayer.set(from, (tally.byPayer.get(from) ?? 0n) + paymentUnits(tx.request));
    tally.counted++;
  }
  return tally.byPayer.get(id) ?? 0n;
}

/**
 * Whether `id`'s wallet holds at least `needed`. Without reading its history when the starting balance
 * alone covers everything it ever paid and `needed` (the common case: a test that pays thousands of
 * times stays fast), else by its balance.
 */
export function covers(state: EmulatorState, id: string, needed: bigint): boolean {
  if (STARTING_BALANCE - paidAtMost(state, id) >= needed) return true;
  return balanceOf(state, id) >= needed;
}

/**
 * What an emulated account's wallet holds of the denomination: the starting balance, plus what
 * successful payments gave it, minus what it paid (docs/kudos-service.md#chain-lookup).
 */
export function balanceOf(state: EmulatorState, id: string): bigint {
  let balance = STARTING_BALANCE;
  for (const tx of state.transactions.values()) balance += change(tx, id);
  return balance;
}
