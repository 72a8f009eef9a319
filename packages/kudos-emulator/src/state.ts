import { randomBytes } from 'node:crypto';
import { tokensToUnits } from 'kudos-core/chain';
import { AdminSessions } from './admin-sessions.js';
import type { EmulatorClock } from './clock.js';
import type {
  EmulatorAgent,
  EmulatorClient,
  EmulatorUser,
  KudosEmulatorLogLevel,
  ResolvedEmulatorOptions,
} from './emulator-options.js';
import type { EmulatorTransaction } from './transaction.js';

/**
 * Whose history lists a transaction, as the service listed it (docs/kudos-service.md#histories): the
 * payer's always; a receiver's only when the record names it as a single `toId`, i.e. a `MsgSend` to
 * one recipient without an agent fee. A `MsgMultiSend` (a fee above 0, or several recipients) recorded
 * `toId` as a list, so only its payer saw it; an agent saw none of the payments made through it.
 */
function historyUsers(tx: EmulatorTransaction): string[] {
  const { from, to, fee } = tx.request;
  const feeAboveZero = fee !== undefined && tokensToUnits(fee) > 0n;
  const [only] = to;
  return to.length === 1 && only !== undefined && !feeAboveZero && only !== from ? [from, only] : [from];
}

/** An app a user has authorized (listed on the account page). */
export interface Grant {
  clientID: string;
  userId: string;
  scope: string[];
  grantedAt: number;
}

/** An authorization code: single use, short-lived, bound to client, redirect URI and user. */
interface CodeRecord {
  clientID: string;
  userId: string;
  redirectURI: string;
  scope: string[];
  expiresAt: number;
  used: boolean;
  /** Refresh token issued for this code, revoked if the code is replayed (RFC 6749 section 4.1.2). */
  refreshToken?: string;
}

/** A live refresh token. */
export interface RefreshRecord {
  clientID: string;
  userId: string;
  scope: string[];
}

/** An emulator login session (its own cookie). */
export interface LoginSession {
  userId: string;
  /** Anti-CSRF token of the emulator's forms. */
  csrf: string;
}

/** Counts of what reached the emulator, for tests (e.g. "exactly one refresh request"). */
export interface EmulatorCounters {
  tokenRequests: number;
  authorizationCodeGrants: number;
  refreshGrants: number;
  revocations: number;
  apiCalls: number;
}

/** Key of a client + user combination (docs/kudos-service.md#limits rule a). */
export function grantKey(clientID: string, userId: string): string {
  return `${clientID}\u0000${userId}`;
}

/** All in-memory state of one emulator. */
export class EmulatorState {
  readonly users = new Map<string, EmulatorUser>();
  readonly clients = new Map<string, Required<EmulatorClient>>();
  readonly agents = new Map<string, EmulatorAgent>();
  readonly sessions = new Map<string, LoginSession>();
  readonly codes = new Map<string, CodeRecord>();
  readonly refreshTokens = new Map<string, RefreshRecord>();
  /** The one live refresh token of each client + user. */
  readonly activeRefresh = new Map<string, string>();
  readonly grants = new Map<string, Grant>();
  /** Access token IDs issued per client + user, so a revocation can end them too. */
  readonly accessTokenIds = new Map<string, Set<string>>();
  readonly revokedAccessTokenIds = new Set<string>();
  readonly counters: EmulatorCounters = {
    tokenRequests: 0,
    authorizationCodeGrants: 0,
    refreshGrants: 0,
    revocations: 0,
    apiCalls: 0,
  };
  /** Transactions by hash; add them with {@link EmulatorState.addTransaction}. */
  readonly transactions = new Map<string, EmulatorTransaction>();
  /** Transaction hashes in the order they were added, so that the newest are read without a walk. */
  private readonly transactionOrder: string[] = [];
  readonly jwtSecret: string;
  /** The token of the home page's forms (Resend): a page of another site cannot read it. */
  readonly adminCsrf = randomBytes(18).toString('base64url');
  /** Set by close(): nothing new is started after it. */
  closed = false;
  /** The home page's admin sessions (the cookie's random values). */
  readonly adminSessions = new AdminSessions();
  /** The error word the next authorization answers with, as when the service's authorize call fails (a test switch). */
  nextAuthorizeError: string | undefined;
  /** Origin the emulator listens on; set once listening. */
  origin = '';

  constructor(
    readonly options: ResolvedEmulatorOptions,
    readonly clock: EmulatorClock,
  ) {
    this.jwtSecret = options.jwtSecret ?? randomBytes(32).toString('base64url');
    for (const user of options.users) this.users.set(user.id, user);
    for (const client of options.clients) this.clients.set(client.clientID, client);
    for (const agent of options.agents) this.agents.set(agent.id, agent);
  }

  /** Host name and port of this emulator (`aud` and `iss` of its tokens), once listening. */
  get host(): string {
    if (this.hostOf?.origin !== this.origin)
      this.hostOf = { origin: this.origin, host: new URL(this.origin).host };
    return this.hostOf.host;
  }

  private hostOf: { origin: string; host: string } | undefined;

  /** `{authURL}` of this emulator. */
  get authURL(): string {
    return this.origin;
  }

  /** `{baseURL}` of this emulator. */
  get baseURL(): string {
    return `${this.origin}/api`;
  }

  /** Called after every change worth keeping (a state file saves on it). */
  onChange: () => void = () => undefined;

  /** Transactions added or changed since the state file last saved them. */
  private readonly unsaved = new Set<string>();

  /** Tells that a transaction changed (it settled): the state file appends its new version. */
  transactionChanged(tx: EmulatorTransaction): void {
    this.unsaved.add(tx.txHash);
  }

  /** Puts back transactions a failed save took: the next save appends them. */
  keepUnsaved(transactions: readonly EmulatorTransaction[]): void {
    for (const tx of transactions) this.unsaved.add(tx.txHash);
  }

  /** The transactions added or changed since the last call: what the state file's log appends. */
  takeUnsavedTransactions(): EmulatorTransaction[] {
    const list = [...this.unsaved].flatMap((hash) => this.transactions.get(hash) ?? []);
    this.unsaved.clear();
    return list;
  }

  /**
   * Records a transaction under its hash and indexes it by each user it involves (payer, receivers,
   * agent): a new payment, a settled one read back from a state file, or a pending one taken back
   * after a restart. It counts as unsaved until `takeUnsavedTransactions()` hands it to the log.
   */
  addTransaction(tx: EmulatorTransaction): void {
    this.unsaved.add(tx.txHash);
    if (!this.transactions.has(tx.txHash)) {
      this.transactionOrder.push(tx.txHash);
      for (const user of historyUsers(tx)) {
        const list = this.byUser.get(user) ?? [];
        list.push(tx.txHash);
        this.byUser.set(user, list);
      }
    }
    this.transactions.set(tx.txHash, tx);
  }

  /** Whether a user or agent has a chain wallet (one registered lately may have none: `wallet: false`). */
  hasWallet(id: string): boolean {
    return this.users.get(id)?.wallet !== false && this.agents.get(id)?.wallet !== false;
  }

  /** Each user's history (see {@link historyUsers}), in the order the transactions were added. */
  private readonly byUser = new Map<string, string[]>();

  /**
   * A user's transactions from `beforeOrAt` (epoch milliseconds) back, newest first, at most `count`:
   * a cost of what is skipped and `count`, not of the whole history.
   */
  userTransactions(userId: string, beforeOrAt: number, count: number): EmulatorTransaction[] {
    const hashes = this.byUser.get(userId) ?? [];
    const found: EmulatorTransaction[] = [];
    for (let at = hashes.length - 1; at >= 0 && found.length < count; at--) {
      const tx = this.transactions.get(hashes[at] as string);
      if (tx && tx.ts <= beforeOrAt) found.push(tx);
    }
    return found;
  }

  /** The transactions added from the `from`-th on (0: all), oldest first: a cost of what is new since. */
  transactionsAddedSince(from: number): EmulatorTransaction[] {
    return this.transactionOrder.slice(from).flatMap((hash) => this.transactions.get(hash) ?? []);
  }

  /** The newest `count` transactions, newest first: a cost of `count`, whatever the history. */
  recentTransactions(count: number): EmulatorTransaction[] {
    const recent: EmulatorTransaction[] = [];
    for (let at = this.transactionOrder.length - 1; at >= 0 && recent.length < count; at--) {
      const tx = this.transactions.get(this.transactionOrder[at] as string);
      if (tx) recent.push(tx);
    }
    return recent;
  }

  changed(): void {
    this.onChange();
  }

  /** Logs one line; never called with secrets or tokens. */
  log(line: string, level: KudosEmulatorLogLevel = 'info'): void {
    this.options.log(`[kudos-emulator] ${line}`, level);
  }
}
