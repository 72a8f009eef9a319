import { txHash, walletAddress } from './ids.js';
import type { EmulatorState } from './state.js';
import type { EmulatorTransaction, PaymentOutcome, PaymentRequest, TxStatus } from './transaction.js';

export type { EmulatorTransaction, PaymentOutcome, PaymentRequest, TxStatus } from './transaction.js';

/** Smallest unit of the emulator's token, and how many of them make one whole token (docs/kudos-service.md#notifications). */
export const DENOM = 'nanokudos';
const UNITS_PER_TOKEN = 1_000_000_000n;

type Checked = { ok: true; request: PaymentRequest } | { ok: false; message: string };

/** Query parameters of the payment widget (docs/kudos-service.md#payment-widget). */
export const WIDGET_PARAMS = [
  'to',
  'amount',
  'via',
  'fee',
  'remarks',
  'state',
  'redirect_uri',
  'blocking',
] as const;

const WHOLE_TOKENS = /^[1-9][0-9]{0,11}$/;
const FEE = /^(0|[1-9][0-9]{0,11})$/;

function isHttpURL(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

function single(params: URLSearchParams, name: string): string | undefined | null {
  const all = params.getAll(name);
  if (all.length > 1) return null;
  return all[0] === '' ? undefined : all[0];
}

/**
 * Checks the widget's query parameters for a logged-in payer. Every problem names the parameter.
 */
export function checkPayment(state: EmulatorState, params: URLSearchParams, payer: string): Checked {
  const values: Record<string, string | undefined> = {};
  for (const name of WIDGET_PARAMS) {
    const value = single(params, name);
    if (value === null) return { ok: false, message: `"${name}" was given more than once.` };
    values[name] = value;
  }
  const { to, amount, via, fee, remarks, redirect_uri: redirectURI, blocking } = values;
  if (!to || !state.users.has(to)) return { ok: false, message: '"to" must name an existing user.' };
  if (to === payer) return { ok: false, message: '"to" must be another user than the payer.' };
  if (!amount || !WHOLE_TOKENS.test(amount)) {
    return { ok: false, message: '"amount" must be a whole number of tokens, 1 or more.' };
  }
  if (via !== undefined && !state.users.has(via) && !state.agents.has(via)) {
    return { ok: false, message: '"via" must name an existing user.' };
  }
  if (fee !== undefined && (!FEE.test(fee) || via === undefined)) {
    return { ok: false, message: '"fee" must be a whole number of tokens and needs "via".' };
  }
  if (remarks !== undefined && remarks.length > 256)
    return { ok: false, message: '"remarks" is longer than 256.' };
  if (values.state !== undefined && values.state.length > 512) {
    return { ok: false, message: '"state" is longer than 512.' };
  }
  if (redirectURI !== undefined && !isHttpURL(redirectURI)) {
    // Checked before any payment is made: a URL that does not parse would fail only at the redirect.
    return { ok: false, message: '"redirect_uri" must be an absolute http(s) URL.' };
  }
  if (blocking !== undefined && !['true', 'false', '1', '0'].includes(blocking)) {
    return { ok: false, message: '"blocking" must be true or false.' };
  }
  const request: PaymentRequest = { from: payer, to, amount };
  if (via !== undefined) request.via = via;
  if (fee !== undefined) request.fee = fee;
  if (remarks !== undefined) request.remarks = remarks;
  if (values.state !== undefined) request.state = values.state;
  if (redirectURI !== undefined) request.redirectURI = redirectURI;
  if (blocking === 'true' || blocking === '1') request.blocking = true;
  return { ok: true, request };
}

/** The notification body, shaped like the sample of docs/kudos-service.md#notifications. */
export function notificationBody(tx: EmulatorTransaction, status: TxStatus = tx.status): unknown {
  const { request } = tx;
  const remarks = request.remarks ?? '';
  const kudosPay: Record<string, unknown> = {
    agentId: request.via,
    amounts: [request.amount],
    remarks,
    agentFee: request.fee ?? '0',
    toIds: [request.to],
  };
  if (request.state !== undefined) kudosPay.state = request.state;
  if (request.redirectURI !== undefined) kudosPay.redirectUri = request.redirectURI;
  if (request.blocking) kudosPay.blocking = true;
  return {
    tx: {
      from: walletAddress(request.from),
      ts: tx.ts,
      to: walletAddress(request.to),
      amount: { amount: (BigInt(request.amount) * UNITS_PER_TOKEN).toString(), denom: DENOM },
      completeTs: tx.completeTs,
      txHash: tx.txHash,
      toId: request.to,
      fromId: request.from,
      remarks,
      status,
      type: 'cosmosTransfer',
    },
    metadata: { kudosPay },
  };
}

/** Called when a transaction is created and when it reaches its final status. */
export type TransactionListener = (tx: EmulatorTransaction, event: 'created' | 'settled') => void;

/**
 * Creates a `pending` transaction that becomes `outcome` (default `success`) after the
 * configured delay. Timers are tracked so `close()` can stop them.
 */
export function createTransaction(
  state: EmulatorState,
  request: PaymentRequest,
  outcome: PaymentOutcome,
  timers: Set<NodeJS.Timeout>,
  listener: TransactionListener,
): EmulatorTransaction {
  const now = state.clock.now();
  let settle: () => void = () => undefined;
  const tx: EmulatorTransaction = {
    txHash: txHash(),
    request,
    status: 'pending',
    ts: now,
    completeTs: now,
    height: undefined,
    settled: new Promise((resolve) => {
      settle = resolve;
    }),
  };
  listener(tx, 'created');
  const timer = setTimeout(() => {
    timers.delete(timer);
    tx.status = outcome;
    tx.completeTs = state.clock.now();
    if (outcome !== 'timeout') tx.height = 1_000_000 + state.transactions.size;
    state.log(`transaction ${tx.txHash.slice(0, 8)}… ${outcome}`);
    listener(tx, 'settled');
    settle();
  }, state.options.paymentDelayMs);
  timers.add(timer);
  return tx;
}
