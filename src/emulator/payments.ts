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

/** Whole tokens as a decimal string: up to 12 digits, up to 9 decimals (the smallest unit is 10^-9). */
const TOKENS = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,9})?$/;
/** Longest memo the service keeps (observed). */
const MAX_REMARKS = 255;
/** Most receivers of one payment (the emulator's bound). */
const MAX_RECEIVERS = 20;

/** A decimal token amount in the smallest unit. */
export function toUnits(tokens: string): bigint {
  const [whole = '0', fraction = ''] = tokens.split('.');
  return BigInt(whole) * UNITS_PER_TOKEN + BigInt(fraction.padEnd(9, '0'));
}

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

/** A comma-separated list, trimmed; undefined when an entry is empty. */
function list(value: string): string[] | undefined {
  const items = value.split(',').map((item) => item.trim());
  return items.every((item) => item !== '') ? items : undefined;
}

/**
 * The payment redirect whitelist check (observed): with `via` the agent's whitelist applies, else
 * every receiver's. Exact match. Answers the page's error code, or undefined when allowed.
 */
function redirectProblem(state: EmulatorState, redirectURI: string, via: string | undefined, to: string[]) {
  const owners =
    via !== undefined ? [state.agents.get(via) ?? state.users.get(via)] : to.map((id) => state.users.get(id));
  for (const owner of owners) {
    const allowed = owner?.paymentRedirectURIs;
    if (!allowed || allowed.length === 0) return 'AGENT_NOT_SETUP_PAYMENT_REDIRECT';
    if (!allowed.includes(redirectURI)) return 'REDIRECT_URI_NOT_WHITELIST';
  }
  return undefined;
}

/**
 * Checks the widget's query parameters for a logged-in payer. Every problem names the parameter
 * or is the service's own error code; nothing is paid and nothing redirects on a problem.
 */
export function checkPayment(state: EmulatorState, params: URLSearchParams, payer: string): Checked {
  const values: Record<string, string | undefined> = {};
  const given: Record<string, string> = {};
  for (const name of WIDGET_PARAMS) {
    const value = single(params, name);
    if (value === null) return { ok: false, message: `"${name}" was given more than once.` };
    values[name] = value;
    if (value !== undefined) given[name] = value;
  }
  const { via, fee, redirect_uri: redirectURI, blocking } = values;
  const to = values.to === undefined ? undefined : list(values.to);
  if (!to || to.length > MAX_RECEIVERS || !to.every((id) => state.users.has(id))) {
    return { ok: false, message: `"to" must name existing users (up to ${MAX_RECEIVERS}, comma-separated).` };
  }
  if (to.includes(payer)) return { ok: false, message: '"to" must name other users than the payer.' };
  const amounts = values.amount === undefined ? undefined : list(values.amount);
  if (!amounts || !amounts.every((a) => TOKENS.test(a) && toUnits(a) > 0n)) {
    return {
      ok: false,
      message: '"amount" must be a positive number of tokens (up to 9 decimals), or one per receiver.',
    };
  }
  if (amounts.length !== 1 && amounts.length !== to.length) {
    return { ok: false, message: '"amount" must be one amount, or one per receiver of "to".' };
  }
  if (via !== undefined && !state.users.has(via) && !state.agents.has(via)) {
    return { ok: false, message: '"via" must name an existing user.' };
  }
  if (fee !== undefined && via === undefined) return { ok: false, message: 'MISSING_VIA' };
  if (fee !== undefined && !TOKENS.test(fee))
    return { ok: false, message: '"fee" must be a number of tokens.' };
  if (values.state !== undefined && values.state.length > 512) {
    return { ok: false, message: '"state" is longer than 512.' };
  }
  if (redirectURI !== undefined) {
    // Checked before any payment is made: a URL that does not parse would fail only at the redirect.
    if (!isHttpURL(redirectURI))
      return { ok: false, message: '"redirect_uri" must be an absolute http(s) URL.' };
    const problem = redirectProblem(state, redirectURI, via, to);
    if (problem) return { ok: false, message: problem };
  }
  const remarks = (values.remarks ?? (via === undefined ? 'kudos pay' : `kudos pay via ${via}`)).slice(
    0,
    MAX_REMARKS,
  );
  const request: PaymentRequest = {
    from: payer,
    to,
    amounts: amounts.length === 1 ? to.map(() => amounts[0] as string) : amounts,
    remarks,
    blocking: blocking !== undefined, // any non-empty value (observed)
    given,
  };
  if (via !== undefined) request.via = via;
  if (fee !== undefined) request.fee = fee;
  if (values.state !== undefined) request.state = values.state;
  if (redirectURI !== undefined) request.redirectURI = redirectURI;
  return { ok: true, request };
}

/** The coin of `tokens` in the smallest unit. */
export function coin(tokens: string): { amount: string; denom: string } {
  return { amount: toUnits(tokens).toString(), denom: DENOM };
}

/**
 * The notification body, shaped like the sample of docs/kudos-service.md#notifications: one
 * receiver as strings and an object, several as arrays (observed); `metadata.kudosPay` as in the
 * sample, and the widget's other values as given (strings: `blocking` is `"true"`, observed).
 */
export function notificationBody(tx: EmulatorTransaction, status: TxStatus = tx.status): unknown {
  const { request } = tx;
  const several = request.to.length > 1;
  const kudosPay: Record<string, unknown> = {
    agentId: request.via,
    amounts: [...request.amounts],
    remarks: request.remarks,
    agentFee: request.fee ?? '0',
    toIds: [...request.to],
  };
  const metadata: Record<string, unknown> = { kudosPay };
  if (request.given.state !== undefined) metadata.state = request.given.state;
  if (request.given.redirect_uri !== undefined) metadata.redirectUri = request.given.redirect_uri;
  if (request.given.blocking !== undefined) metadata.blocking = request.given.blocking;
  const addresses = request.to.map(walletAddress);
  const coins = request.amounts.map(coin);
  return {
    tx: {
      from: walletAddress(request.from),
      ts: tx.ts,
      to: several ? addresses : addresses[0],
      amount: several ? coins : coins[0],
      completeTs: tx.completeTs,
      txHash: tx.txHash,
      toId: several ? [...request.to] : request.to[0],
      fromId: request.from,
      remarks: request.remarks,
      status,
      type: 'cosmosTransfer',
    },
    metadata,
  };
}

/**
 * The bank messages of a payment on chain (observed): one `MsgSend` for one receiver without an
 * agent fee; otherwise one `MsgMultiSend` whose outputs pay each receiver and the agent.
 */
export function chainMessages(request: PaymentRequest): unknown[] {
  const fee = request.fee !== undefined && toUnits(request.fee) > 0n ? request.fee : undefined;
  const from = walletAddress(request.from);
  if (request.to.length === 1 && fee === undefined) {
    return [
      {
        '@type': '/cosmos.bank.v1beta1.MsgSend',
        from_address: from,
        to_address: walletAddress(request.to[0] as string),
        amount: [coin(request.amounts[0] as string)],
      },
    ];
  }
  const outputs = request.to.map((id, i) => ({
    address: walletAddress(id),
    coins: [coin(request.amounts[i] as string)],
  }));
  if (fee !== undefined && request.via !== undefined)
    outputs.push({ address: walletAddress(request.via), coins: [coin(fee)] });
  const total = outputs.reduce((sum, output) => sum + BigInt(output.coins[0]?.amount ?? '0'), 0n);
  return [
    {
      '@type': '/cosmos.bank.v1beta1.MsgMultiSend',
      inputs: [{ address: from, coins: [{ amount: total.toString(), denom: DENOM }] }],
      outputs,
    },
  ];
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
    outcome,
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
