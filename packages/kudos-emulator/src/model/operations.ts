import type { EmulatorClient, EmulatorUser } from '../emulator-options.js';
import { checkEmulatorUser, resolveEmulatorOptions } from '../emulator-options.js';
import type { EmulatorState } from '../state.js';
import type { EmulatorTransaction, FinalTxStatus, PaymentRequest } from '../transaction.js';
import {
  balanceRefusal,
  chainRefusal,
  checkPayment,
  createTransaction,
  selfPayment,
  settleLater,
  type TransactionListener,
} from './payments.js';

/** Arguments of `pay()`: a widget payment, made without a browser, checked as the widget checks it. */
export interface PayArguments {
  /** Payer user ID. */
  from: string;
  /** Receiver user ID, or several. */
  to: string | readonly string[];
  /** Tokens (decimal string), or one per receiver. */
  amount: string | readonly string[];
  /** Agent user ID. */
  via?: string;
  /** Extra tokens to the agent (needs `via`). */
  fee?: string;
  remarks?: string;
  state?: string;
  /** Must be on the agent's (or receiver's) payment redirect whitelist. */
  redirectURI?: string;
  blocking?: boolean;
  /** Final status to force; default `success`. */
  outcome?: FinalTxStatus;
  /**
   * Whether the payer's browser posts the widget's metadata after the broadcast; default true.
   * `false` makes the payment the real widget makes when that post fails (an expired session, a
   * closed tab): the money moves and the transaction is recorded, without metadata, and no
   * notification is sent (docs/kudos-service.md#widget-metadata).
   */
  metadataPosted?: boolean;
}

/**
 * What the emulator can be asked to do outside its pages: by the test helpers of
 * `startKudosEmulator()` and by the admin API (`/_emulator/`), the same code for both.
 * Every change tells the state (so a state file is saved).
 */
export class EmulatorOperations {
  private nextOutcome: FinalTxStatus | undefined;
  private dropNextMetadata = false;

  constructor(
    private readonly state: EmulatorState,
    /** What is told of each transaction: the webhook sender (kept structural: model/ sits below it). */
    private readonly webhooks: { onTransaction: TransactionListener },
    private readonly timers: Set<NodeJS.Timeout>,
  ) {}

  /**
   * Starts a checked payment: the chain record and the notifications with their retries. With
   * `metadataPosted` false (or after {@link failNextMetadataPost}) the payer's browser never posts
   * the metadata: no notification.
   */
  startPayment(
    request: PaymentRequest,
    outcome?: FinalTxStatus,
    metadataPosted?: boolean,
  ): EmulatorTransaction {
    const final = outcome ?? this.nextOutcome ?? 'success';
    const posted = metadataPosted ?? !this.dropNextMetadata;
    this.nextOutcome = undefined;
    this.dropNextMetadata = false;
    const listener = (t: EmulatorTransaction, event: 'created' | 'settled') => {
      this.webhooks.onTransaction(t, event);
      this.state.changed();
    };
    const tx = createTransaction(this.state, request, final, this.timers, listener, posted);
    this.state.addTransaction(tx);
    this.state.changed();
    return tx;
  }

  /** Takes back a payment a restarted emulator found pending: it settles and notifies as it would have. */
  resumePayment(saved: Omit<EmulatorTransaction, 'settled'>): void {
    const tx = settleLater(this.state, saved, this.timers, (t, event) => {
      this.webhooks.onTransaction(t, event);
      this.state.changed();
    });
    this.state.addTransaction(tx);
  }

  /**
   * Makes a payment exactly as the widget would. Throws `TypeError` naming the problem, the chain's
   * refusal of a memo over 256 bytes included (nothing is recorded then).
   */
  pay({
    outcome,
    from,
    to,
    amount,
    redirectURI,
    blocking,
    metadataPosted,
    ...rest
  }: PayArguments): EmulatorTransaction {
    if (metadataPosted !== undefined && typeof metadataPosted !== 'boolean') {
      throw new TypeError('"metadataPosted" must be true or false.');
    }
    if (!this.state.users.has(from)) throw new TypeError('"from" must name an existing user.');
    const params = new URLSearchParams();
    const values = {
      ...rest,
      to: [to].flat().join(','),
      amount: [amount].flat().join(','),
      redirect_uri: redirectURI,
    };
    for (const [name, value] of Object.entries(values))
      if (value !== undefined) params.set(name, String(value));
    if (blocking) params.set('blocking', 'true');
    const checked = checkPayment(this.state, params);
    if (!checked.ok) throw new TypeError(checked.message);
    const payer = selfPayment(checked.request, from);
    if (!payer.ok) throw new TypeError(payer.message);
    const refused = chainRefusal(payer.request) ?? balanceRefusal(this.state, payer.request);
    if (refused) throw new TypeError(refused.message);
    return this.startPayment(payer.request, outcome, metadataPosted);
  }

  setNextPaymentOutcome(outcome: FinalTxStatus): void {
    this.nextOutcome = outcome;
  }

  /** The next payment confirmed (in the widget, or by `pay()` without `metadataPosted`) has its metadata never posted. */
  failNextMetadataPost(): void {
    this.dropNextMetadata = true;
  }

  /** Registers (or replaces) a user; throws `TypeError` naming a bad field. */
  addUser(user: EmulatorUser, at = 'addUser(): '): EmulatorUser {
    const checked = checkEmulatorUser(user, at, (message) => {
      throw new TypeError(message);
    });
    this.state.users.set(checked.id, checked);
    this.state.changed();
    return checked;
  }

  /** Registers (or replaces) a client; throws `TypeError` naming a bad field. */
  addClient(client: EmulatorClient): Required<EmulatorClient> {
    const [checked] = resolveEmulatorOptions({ clients: [client] }).clients;
    if (!checked) throw new TypeError('addClient(): no client');
    this.state.clients.set(checked.clientID, checked);
    this.state.changed();
    return checked;
  }

  advanceClock(ms: number): void {
    this.state.clock.advance(ms);
    this.state.changed();
  }
}
