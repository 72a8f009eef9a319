import {
  appendFileSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isRecord } from '../checks.js';
import type { EmulatorAgent, EmulatorClient, EmulatorUser } from '../emulator-options.js';
import type { EmulatorState, Grant, RefreshRecord } from '../state.js';
import type { EmulatorTransaction } from '../transaction.js';
import type { OutboxEntry, WebhookDelivery } from '../webhook-sender.js';
import { shapeProblem } from './snapshot-shape.js';
import { StateLockError, takeLock } from './state-lock.js';

/**
 * Version of the state file format. 2: the file holds what stays small (users, clients, agents,
 * grants, tokens, clock, outbox), and `FILE.log` the history (transactions and deliveries), appended
 * line by line, so saving one change costs the same at 100,000 transactions as at 10. 1 (read, and
 * rewritten as 2 at the next start): everything in the file.
 */
const FORMAT = 2;

/** A transaction as saved: everything but its promise. */
type SavedTransaction = Omit<EmulatorTransaction, 'settled'>;

/** What a state file holds. */
export interface EmulatorSnapshot {
  format: typeof FORMAT | 1;
  jwtSecret: string;
  clockOffsetMs: number;
  users: EmulatorUser[];
  clients: Required<EmulatorClient>[];
  agents: EmulatorAgent[];
  grants: Grant[];
  refreshTokens: Array<[string, RefreshRecord]>;
  activeRefresh: Array<[string, string]>;
  transactions: SavedTransaction[];
  /** Every webhook delivery so far (for `deliveries` and `resend`). Absent in older files. */
  deliveries?: WebhookDelivery[];
  /** Notifications not yet delivered nor given up, with their next attempt (resumed at a restart). */
  outbox?: OutboxEntry[];
  nextNotificationId?: number;
}

/** The state file could not be used; the message names the file and why. */
export class EmulatorStateFileError extends Error {
  constructor(file: string, reason: string) {
    super(`state file ${file} ${reason}; it was left as it is`);
    this.name = 'EmulatorStateFileError';
  }
}

/** Reads a state file. Undefined when it does not exist yet (a first start); throws when it is unusable. */
export function readSnapshot(file: string): EmulatorSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new EmulatorStateFileError(
      file,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EmulatorStateFileError(file, 'is not valid JSON (corrupt?)');
  }
  if (!isRecord(json) || (json.format !== FORMAT && json.format !== 1)) {
    throw new EmulatorStateFileError(file, `is not a kudos-emulator state file (format ${FORMAT})`);
  }
  if (json.format === FORMAT) Object.assign(json, readLog(file));
  const problem = shapeProblem(json);
  if (problem) throw new EmulatorStateFileError(file, `has an invalid "${problem}"`);
  return json as unknown as EmulatorSnapshot;
}

/** The log of a state file: its transactions (the last version of each) and deliveries (by ID). */
function readLog(file: string): { transactions: unknown[]; deliveries: unknown[] } {
  let text: string;
  try {
    text = readFileSync(logOf(file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { transactions: [], deliveries: [] };
    throw new EmulatorStateFileError(
      logOf(file),
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const transactions = new Map<unknown, unknown>();
  const deliveries = new Map<unknown, unknown>();
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      // A write cut off (a kill, a full disk): its changes were kept for the next save, so the line
      // is skipped, with a warning. A whole JSON line of the wrong shape is refused below.
      if (i !== lines.length - 1) {
        process.emitWarning(`skipped line ${i + 1} of ${logOf(file)}: a cut-off write (not JSON)`, {
          type: 'KudosEmulatorWarning',
        });
      }
      continue;
    }
    if (isRecord(entry) && isRecord(entry.t)) transactions.set(entry.t.txHash, entry.t);
    else if (isRecord(entry) && isRecord(entry.d)) deliveries.set(entry.d.id, entry.d);
    else throw new EmulatorStateFileError(logOf(file), `has an invalid "line ${i + 1}"`);
  }
  return { transactions: [...transactions.values()], deliveries: [...deliveries.values()] };
}

/** A file's size, 0 when it is not there. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Where a state file keeps its history. */
function logOf(file: string): string {
  return `${target(file)}.log`;
}

/** A transaction as the file keeps it: everything but its promise. */
function saved(tx: EmulatorTransaction): SavedTransaction {
  return {
    txHash: tx.txHash,
    request: tx.request,
    status: tx.status,
    outcome: tx.outcome,
    ts: tx.ts,
    completeTs: tx.completeTs,
    height: tx.height,
    ...(tx.paidPrefix === undefined ? {} : { paidPrefix: tx.paidPrefix }),
    ...(tx.metadataPosted === undefined ? {} : { metadataPosted: tx.metadataPosted }),
  };
}

/** What the file itself holds (format 2): all but the history, whose size grows. */
function smallPart(
  state: EmulatorState,
  webhooks: { outbox: OutboxEntry[]; nextNotificationId: number },
): Omit<EmulatorSnapshot, 'transactions' | 'deliveries'> {
  return {
    format: FORMAT,
    jwtSecret: state.jwtSecret,
    clockOffsetMs: state.clock.offset,
    users: [...state.users.values()],
    clients: [...state.clients.values()],
    agents: [...state.agents.values()],
    grants: [...state.grants.values()],
    refreshTokens: [...state.refreshTokens],
    activeRefresh: [...state.activeRefresh],
    outbox: webhooks.outbox,
    nextNotificationId: webhooks.nextNotificationId,
  };
}

/** What the emulator's webhook sender gives the state file. */
interface SenderState {
  deliveries: readonly WebhookDelivery[];
  outbox: OutboxEntry[];
  nextNotificationId: number;
}

/**
 * Saves a state file: the small part rewritten atomically, the history appended to `FILE.log`
 * (the transactions added or changed since the last save, and the new deliveries). The log is
 * compacted (rewritten with one line per transaction and delivery) at the start and whenever it
 * holds four times more lines than that: a cost per change that does not grow with the history.
 */
export class StateFileWriter {
  private logLines = 0;
  private savedDeliveries = 0;

  constructor(private readonly file: string) {}

  /** Rewrites the log with everything the emulator holds now, then the file (at the start). */
  compact(state: EmulatorState, sender: SenderState): void {
    state.takeUnsavedTransactions();
    const lines = [
      ...[...state.transactions.values()].map((tx) => JSON.stringify({ t: saved(tx) })),
      ...sender.deliveries.map((d) => JSON.stringify({ d })),
    ];
    const log = logOf(this.file);
    const temporary = `${log}.${process.pid}.tmp`;
    writeFileSync(temporary, lines.length ? `${lines.join('\n')}\n` : '', { mode: 0o600 });
    renameSync(temporary, log);
    this.logLines = lines.length;
    this.savedDeliveries = sender.deliveries.length;
    writeSnapshot(this.file, smallPart(state, sender) as EmulatorSnapshot);
  }

  /**
   * Saves one turn's changes. An append that fails (a full disk) trims what it wrote of its lines and
   * keeps its transactions and deliveries for the next save: nothing is dropped, and no half line
   * is left for later lines to follow.
   */
  save(state: EmulatorState, sender: SenderState): void {
    // A new file is written before its log holds a line: a kill between a log line and the file would
    // otherwise leave a log that no file leads to (a pending payment lost at the next start).
    if (!existsSync(this.file)) writeSnapshot(this.file, smallPart(state, sender) as EmulatorSnapshot);
    const transactions = state.takeUnsavedTransactions();
    const lines = [
      ...transactions.map((tx) => JSON.stringify({ t: saved(tx) })),
      ...sender.deliveries.slice(this.savedDeliveries).map((d) => JSON.stringify({ d })),
    ];
    if (lines.length) {
      const log = logOf(this.file);
      const before = sizeOf(log);
      try {
        appendFileSync(log, `${lines.join('\n')}\n`, { mode: 0o600 });
      } catch (error) {
        state.keepUnsaved(transactions);
        try {
          truncateSync(log, before);
        } catch {
          // the next start skips a cut line anyway
        }
        throw error;
      }
      this.logLines += lines.length;
    }
    this.savedDeliveries = sender.deliveries.length;
    if (this.logLines > 4 * (state.transactions.size + sender.deliveries.length) + 1000) {
      this.compact(state, sender);
      return;
    }
    writeSnapshot(this.file, smallPart(state, sender) as EmulatorSnapshot);
  }
}

/** The file a state path stands for: a symbolic link's target (written through, never replaced). */
function target(file: string): string {
  let link: boolean;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return file; // not there yet: a first start
  }
  if (!link) return file;
  try {
    return realpathSync(file);
  } catch {
    return resolve(dirname(file), readlinkSync(file)); // a link to a file not written yet
  }
}

/**
 * Writes a snapshot atomically: to a temporary file beside it, then renamed over it, so a crash
 * mid-write never leaves a half-written state file. A symbolic link is written through: its target
 * is replaced, the link stays.
 */
function writeSnapshot(file: string, snapshot: EmulatorSnapshot): void {
  const real = target(file);
  const temporary = `${real}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(snapshot, null, 1)}\n`, { mode: 0o600 });
  renameSync(temporary, real);
}

/** Removes the temporary files a killed emulator left beside the state file (they hold secrets). */
export function removeLeftovers(file: string): void {
  const real = target(file);
  const prefix = `${basename(real)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(real));
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && /^(log\.)?\d+\.tmp$/.test(name.slice(prefix.length))) {
      rmSync(join(dirname(real), name), { force: true });
    }
  }
}

/**
 * Takes the state file for this process (`FILE.lock`, see state-lock.ts). Another live emulator's
 * lock refuses the start naming the file and that process; a dead one's is taken over. Answers the
 * release.
 */
export function lockStateFile(file: string): () => void {
  const lock = `${target(file)}.lock`;
  try {
    return takeLock(lock);
  } catch (error) {
    if (!(error instanceof StateLockError)) throw error;
    throw new EmulatorStateFileError(
      file,
      error.holder !== undefined
        ? `is in use by another kudos-emulator (process ${error.holder}, lock ${lock})`
        : `${error.message.replace('cannot be locked', `cannot be locked (${lock})`)}`,
    );
  }
}
