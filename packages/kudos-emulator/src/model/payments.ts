import { DENOM } from 'kudos-core';
import type { KudosRawAmount } from 'kudos-core/chain';
import {
  LEGACY_PREFIX,
  MAX_MEMO_BYTES,
  MAX_REMARKS,
  TOKEN_AMOUNT,
  tokensToUnits,
  WIDGET_PARAMS,
} from 'kudos-core/chain';
import type { EmulatorState } from '../state.js';
import type { EmulatorTransaction, FinalTxStatus, PaymentRequest } from '../transaction.js';
import { balanceOf, covers, paymentUnits } from './balances.js';
import { txHash, walletAddress } from './ids.js';

export type { EmulatorTransaction, FinalTxStatus, PaymentRequest } from '../transaction.js';

/**
 * A refusal of the widget: the service's code where the reading observed one
 * (docs/kudos-service.md#payment-widget), else the emulator's own (marked in `checkPayment`), and
 * a message naming the parameter.
 */
export interface PaymentRefusal {
  ok: false;
  code: string;
  message: string;
  /** The page's HTTP status: 404 for an unknown user (observed), 400 otherwise. */
  status: 400 | 404;
}

/** A payment as the widget's parameters ask for it: everything but the payer, known on confirm. */
export type PaymentParams = Omit<PaymentRequest, 'from'>;

type Checked = { ok: true; request: PaymentParams } | PaymentRefusal;

function refuse(code: string, message: string, status: 400 | 404 = 400): PaymentRefusal {
  return { ok: false, code, message, status };
}

/** Most receivers of one payment (the emulator's bound). */
const MAX_RECEIVERS = 20;

function isHttpURL(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/** Popup mode: any `opener` value but `'0'` (observed: `opener=1`, `opener=true`). */
function popup(opener: string | undefined): boolean {
  return opener !== undefined && opener !== '0';
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
 * the recipient's (several recipients without `via` cannot be redirected to). Exact match. Answers the
 * page's error code, or undefined when allowed.
 */
function redirectProblem(state: EmulatorState, redirectURI: string, via: string | undefined, to: string[]) {
  if (via === undefined && to.length > 1) return 'CANNOT_REDIRECT_MULTIPLE_RECEIPIENTS'; // sic
  const owner =
    via !== undefined ? (state.agents.get(via) ?? state.users.get(via)) : state.users.get(to[0] ?? '');
  const allowed = owner?.paymentRedirectURIs;
  if (!allowed || allowed.length === 0) {
    return via !== undefined ? 'AGENT_NOT_SETUP_PAYMENT_REDIRECT' : 'USER_NOT_SETUP_PAYMENT_REDIRECT';
  }
  return allowed.includes(redirectURI) ? undefined : 'REDIRECT_URI_NOT_WHITELIST';
}

/**
 * Checks the widget's parameters, before anything else and whoever asks (observed: a signed-out
 * payer with no `amount` sees `INVALID_AMOUNT`, not the sign-in page). Nothing is paid and nothing
 * redirects on a problem. Codes in upper case are the service's (observed); those the reading did
 * not establish are the emulator's own, named after the parameter: `INVALID_FEE`, `INVALID_STATE`,
 * `INVALID_REDIRECT_URI`, `DUPLICATE_PARAMETER`. Who pays is checked on confirm ({@link selfPayment}).
 */
export function checkPayment(state: EmulatorState, params: URLSearchParams): Checked {
  const values: Record<string, string | undefined> = {};
  const given: Record<string, string> = {};
  for (const name of WIDGET_PARAMS) {
    const value = single(params, name);
    if (value === null) return refuse('DUPLICATE_PARAMETER', `"${name}" was given more than once.`);
    values[name] = value;
    if (value !== undefined) given[name] = value;
  }
  const { via, fee, redirect_uri: redirectURI, blocking } = values;
  const to = values.to === undefined ? undefined : list(values.to);
  if (!to || to.length > MAX_RECEIVERS) {
    return refuse('INVALID_RECIPIENT', `"to" must name users (up to ${MAX_RECEIVERS}, comma-separated).`);
  }
  const unknown = [...to, ...(via === undefined ? [] : [via])].find(
    (id) => !state.users.has(id) && !state.agents.has(id),
  );
  if (unknown !== undefined) {
    // The service's spelling (observed), for an unknown `to` or `via` alike.
    return refuse('RECEIPIENT_NOT_FOUND', `No user "${unknown}" (in "to" or "via").`, 404);
  }
  // A receiver or an agent without a chain wallet (registered lately): refused (observed).
  const walletless = to.find((id) => !state.hasWallet(id));
  if (walletless !== undefined) {
    return refuse('RECEIPIENT_HAS_NO_WALLET', `"${walletless}" (in "to") has no wallet to be paid in.`);
  }
  if (via !== undefined && !state.hasWallet(via)) {
    return refuse('VIA_USER_HAS_NO_WALLET', `"${via}" (in "via") has no wallet to take a fee in.`);
  }
  const amounts = values.amount === undefined ? undefined : list(values.amount);
  if (!amounts?.every((a) => TOKEN_AMOUNT.test(a) && tokensToUnits(a) > 0n)) {
    return refuse('INVALID_AMOUNT', '"amount" must be a positive number of tokens (up to 9 decimals).');
  }
  if (amounts.length !== to.length) {
    return refuse(
      'RECIPIENT_AND_AMOUNT_SIZE_MISMATCH',
      '"amount" must give one amount per receiver of "to".',
    );
  }
  if (fee !== undefined && via === undefined) return refuse('MISSING_VIA', '"fee" needs "via".');
  if (fee !== undefined && !TOKEN_AMOUNT.test(fee))
    return refuse('INVALID_FEE', '"fee" must be a number of tokens.');
  if (values.state !== undefined && values.state.length > 512) {
    return refuse('INVALID_STATE', '"state" is longer than 512.');
  }
  if (redirectURI !== undefined) {
    // Checked before any payment is made: a URL that does not parse would fail only at the redirect.
    if (!isHttpURL(redirectURI)) {
      return refuse('INVALID_REDIRECT_URI', '"redirect_uri" must be an absolute http(s) URL.');
    }
    // In popup mode the redirect_uri only names the message's target origin: no whitelist (observed).
    const problem = popup(values.opener) ? undefined : redirectProblem(state, redirectURI, via, to);
    if (problem) return refuse(problem, `"redirect_uri" may not be used here (${problem}).`);
  }
  // The default memo only when `remarks` is absent: given empty, it stays empty (observed).
  const memo = params.has('remarks') ? (values.remarks ?? '') : undefined;
  const remarks = (memo ?? (via === undefined ? 'kudos pay' : `kudos pay via ${via}`)).slice(0, MAX_REMARKS);
  const request: PaymentParams = {
    to,
    amounts,
    remarks,
    blocking: blocking !== undefined, // any non-empty value (observed)
    opener: popup(values.opener),
    given,
  };
  if (via !== undefined) request.via = via;
  if (fee !== undefined) request.fee = fee;
  if (values.state !== undefined) request.state = values.state;
  if (redirectURI !== undefined) request.redirectURI = redirectURI;
  return { ok: true, request };
}

/**
 * The payer's own part of the check, on confirm: paying yourself is refused (observed: the page
 * shows no error code then). Answers the request with its payer, or a message.
 */
export function selfPayment(
  request: PaymentParams,
  payer: string,
): { ok: true; request: PaymentRequest } | { ok: false; message: string } {
  if (request.to.includes(payer)) return { ok: false, message: 'You cannot pay yourself.' };
  return { ok: true, request: { ...request, from: payer } };
}

/**
 * The chain's own refusal, when the transaction is submitted (observed): a memo of more than 256
 * UTF-8 bytes. The payer sees an error; nothing is recorded and nothing is sent. `MEMO_TOO_LARGE` is
 * the emulator's word for it (the chain's is a sentence).
 */
export function chainRefusal(request: PaymentParams): PaymentRefusal | undefined {
  const bytes = Buffer.byteLength(request.remarks, 'utf8');
  if (bytes <= MAX_MEMO_BYTES) return undefined;
  return refuse(
    'MEMO_TOO_LARGE',
    `The chain refused the transaction: its memo ("remarks") is ${bytes} bytes, more than ${MAX_MEMO_BYTES}. Nothing was paid.`,
  );
}

/**
 * The confirm's refusal of a payment the payer's wallet cannot cover (amount and fee; the emulator
 * charges no gas), observed. `INSUFFICIENT_BALANCE` is the emulator's word for it (the page's is not known).
 */
export function balanceRefusal(state: EmulatorState, request: PaymentRequest): PaymentRefusal | undefined {
  const needed = paymentUnits(request);
  if (covers(state, request.from, needed)) return undefined;
  const balance = balanceOf(state, request.from);
  return refuse(
    'INSUFFICIENT_BALANCE',
    `The payment needs ${needed} ${DENOM} and the wallet holds ${balance > 0n ? balance : 0n}. Nothing was paid.`,
  );
}

/** The coin of `tokens` in the smallest unit. */
export function coin(tokens: string): KudosRawAmount {
  return { amount: tokensToUnits(tokens).toString(), denom: DENOM };
}

/** One output of a payment on chain: each recipient, then the agent's fee when there is one. */
interface PaymentOutput {
  userId: string;
  address: string;
  coin: KudosRawAmount;
  /** The agent's fee output (`via` with a fee above 0). */
  agent: boolean;
}

/**
 * The outputs of a payment, in the order of the chain's `MsgMultiSend` (receivers, then the agent),
 * each address spelled as the transaction paid it (`paidPrefix`: the main prefix since 2022).
 */
export function paymentOutputs(tx: Pick<EmulatorTransaction, 'request' | 'paidPrefix'>): PaymentOutput[] {
  const { request } = tx;
  const prefix = tx.paidPrefix ?? LEGACY_PREFIX;
  const outputs = request.to.map((userId, i) => ({
    userId,
    address: walletAddress(userId, prefix),
    coin: coin(request.amounts[i] as string),
    agent: false,
  }));
  const fee = request.fee !== undefined && tokensToUnits(request.fee) > 0n ? request.fee : undefined;
  if (fee !== undefined && request.via !== undefined) {
    outputs.push({
      userId: request.via,
      address: walletAddress(request.via, prefix),
      coin: coin(fee),
      agent: true,
    });
  }
  return outputs;
}

/** The sum of the outputs, as one coin. */
export function totalCoin(outputs: readonly PaymentOutput[]): KudosRawAmount {
  const total = outputs.reduce((sum, output) => sum + BigInt(output.coin.amount), 0n);
  return { amount: total.toString(), denom: DENOM };
}

/**
 * The bank messages of a payment on chain (observed): one `MsgSend` for one recipient without an
 * agent fee; otherwise one `MsgMultiSend` whose outputs pay each recipient and the agent.
 */
export function chainMessages(tx: Pick<EmulatorTransaction, 'request' | 'paidPrefix'>): unknown[] {
  const from = walletAddress(tx.request.from);
  const outputs = paymentOutputs(tx);
  const [only] = outputs;
  if (outputs.length === 1 && only) {
    return [
      {
        '@type': '/cosmos.bank.v1beta1.MsgSend',
        from_address: from,
        to_address: only.address,
        amount: [only.coin],
      },
    ];
  }
  return [
    {
      '@type': '/cosmos.bank.v1beta1.MsgMultiSend',
      inputs: [{ address: from, coins: [totalCoin(outputs)] }],
      outputs: outputs.map((output) => ({ address: output.address, coins: [output.coin] })),
    },
  ];
}

/** Called when a transaction is created and when it reaches its final status. */
export type TransactionListener = (tx: EmulatorTransaction, event: 'created' | 'settled') => void;

/**
 * Creates a `pending` transaction that becomes `outcome` (default `success`) after the
 * configured delay, paying the recipients' addresses in the spelling the emulator is set to (the
 * main prefix by default, as the widget since 2022). Timers are tracked so `close()` can stop them.
 */
export function createTransaction(
  state: EmulatorState,
  request: PaymentRequest,
  outcome: FinalTxStatus,
  timers: Set<NodeJS.Timeout>,
  listener: TransactionListener,
  metadataPosted = true,
): EmulatorTransaction {
  const now = state.clock.now();
  const tx = settleLater(
    state,
    {
      txHash: txHash(),
      request,
      status: 'pending',
      outcome,
      ts: now,
      completeTs: now,
      height: undefined,
      paidPrefix: state.options.paymentAddressPrefix,
      metadataPosted,
    },
    timers,
    listener,
  );
  listener(tx, 'created');
  return tx;
}

/**
 * A pending transaction that reaches its outcome after the configured delay: a new one, or one a
 * restarted emulator found pending in its state file (it settles and notifies then, as it would have).
 */
export function settleLater(
  state: EmulatorState,
  pending: Omit<EmulatorTransaction, 'settled'>,
  timers: Set<NodeJS.Timeout>,
  listener: TransactionListener,
): EmulatorTransaction {
  let settle: () => void = () => undefined;
  const tx: EmulatorTransaction = {
    ...pending,
    settled: new Promise((resolve) => {
      settle = resolve;
    }),
  };
  const timer = setTimeout(() => {
    timers.delete(timer);
    tx.status = tx.outcome;
    tx.completeTs = state.clock.now();
    if (tx.outcome !== 'timeout') tx.height = 1_000_000 + state.transactions.size;
    state.transactionChanged(tx);
    state.log(`transaction ${tx.txHash.slice(0, 8)}… ${tx.outcome}`);
    // A timer's exception would end the process (and, with a state file, every start after it): the
    // state file is checked at start, so this is a last guard, said and survived.
    try {
      listener(tx, 'settled');
    } catch (error) {
      state.log(
        `transaction ${tx.txHash.slice(0, 8)}… settled, but its notification failed: ${error instanceof Error ? error.message : 'unknown'}`,
        'error',
      );
    }
    settle();
  }, state.options.paymentDelayMs);
  timers.add(timer);
  return tx;
}
