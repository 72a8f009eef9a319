import {
  closeSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isRecord } from '../guards.js';
import { MAX_CLOCK_OFFSET_MS } from './clock.js';
import type { EmulatorAgent, EmulatorClient, EmulatorUser } from './emulator-options.js';
import type { EmulatorState, Grant, RefreshRecord } from './state.js';
import type { EmulatorTransaction } from './transaction.js';
import type { OutboxEntry, WebhookDelivery } from './webhook-sender.js';

/** Version of the state file format. */
const FORMAT = 1;

/** A transaction as saved: everything but its promise. */
export type SavedTransaction = Omit<EmulatorTransaction, 'settled'>;

/** What a state file holds. */
export interface EmulatorSnapshot {
  format: typeof FORMAT;
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
  if (!isRecord(json) || json.format !== FORMAT) {
    throw new EmulatorStateFileError(file, `is not a kudos-emulator state file (format ${FORMAT})`);
  }
  const problem = shapeProblem(json);
  if (problem) throw new EmulatorStateFileError(file, `has an invalid "${problem}"`);
  return json as unknown as EmulatorSnapshot;
}

type Check = (value: unknown) => boolean;
const text: Check = (v) => typeof v === 'string';
const count: Check = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const time: Check = (v) => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 8.64e15;
const texts: Check = (v) => Array.isArray(v) && v.every(text);
const record =
  (fields: Record<string, Check>, optional: Record<string, Check> = {}) =>
  (v: unknown): string | undefined => {
    if (!isRecord(v)) return '';
    for (const [name, ok] of Object.entries(fields)) if (!ok(v[name])) return `.${name}`;
    for (const [name, ok] of Object.entries(optional))
      if (v[name] !== undefined && !ok(v[name])) return `.${name}`;
    return undefined;
  };
const pair =
  (second: (v: unknown) => string | undefined) =>
  (v: unknown): string | undefined => {
    if (!Array.isArray(v) || v.length !== 2 || !text(v[0])) return '';
    return second(v[1]) === undefined ? undefined : '[1]';
  };

/** Every list of the file and what each entry must be, so a bad file is refused naming the field. */
const LISTS: Record<string, (v: unknown) => string | undefined> = {
  users: record({ id: text, password: text }),
  clients: record({ clientID: text, clientSecret: text, redirectURIs: texts }),
  agents: record({ id: text }, { webhookURL: text, paymentRedirectURIs: texts }),
  grants: record({ clientID: text, userId: text, scope: texts, grantedAt: time }),
  refreshTokens: pair(record({ clientID: text, userId: text, scope: texts })),
  activeRefresh: (v) => (Array.isArray(v) && v.length === 2 && text(v[0]) && text(v[1]) ? undefined : ''),
  transactions: record({
    txHash: text,
    request: (v) => record({ from: text, to: texts, amounts: texts, remarks: text })(v) === undefined,
    status: text,
    outcome: text,
    ts: time,
    completeTs: time,
  }),
};
const OPTIONAL_LISTS: Record<string, (v: unknown) => string | undefined> = {
  deliveries: record({ id: count, notificationId: count, txHash: text, attempt: count, body: text }),
  outbox: record({
    notificationId: count,
    agentId: text,
    url: text,
    txHash: text,
    body: text,
    attempt: count,
    dueAt: time,
  }),
};

/** The first field of a parsed state file that is not what the emulator wrote, or undefined. */
function shapeProblem(json: Record<string, unknown>): string | undefined {
  if (typeof json.jwtSecret !== 'string' || json.jwtSecret === '') return 'jwtSecret';
  const offset = json.clockOffsetMs;
  if (typeof offset !== 'number' || !(offset >= 0 && offset <= MAX_CLOCK_OFFSET_MS)) return 'clockOffsetMs';
  if (json.nextNotificationId !== undefined && !count(json.nextNotificationId)) return 'nextNotificationId';
  for (const [name, entry] of [...Object.entries(LISTS), ...Object.entries(OPTIONAL_LISTS)]) {
    const list = json[name];
    if (list === undefined && name in OPTIONAL_LISTS) continue;
    if (!Array.isArray(list)) return name;
    for (const [i, item] of list.entries()) {
      const where = entry(item);
      if (where !== undefined) return `${name}[${i}]${where}`;
    }
  }
  return undefined;
}

/** The state worth keeping, with the webhook sender's deliveries and what it has still to send. */
export function takeSnapshot(
  state: EmulatorState,
  webhooks: Pick<EmulatorSnapshot, 'deliveries' | 'outbox' | 'nextNotificationId'>,
): EmulatorSnapshot {
  return {
    ...webhooks,
    format: FORMAT,
    jwtSecret: state.jwtSecret,
    clockOffsetMs: state.clock.offset,
    users: [...state.users.values()],
    clients: [...state.clients.values()],
    agents: [...state.agents.values()],
    grants: [...state.grants.values()],
    refreshTokens: [...state.refreshTokens],
    activeRefresh: [...state.activeRefresh],
    transactions: [...state.transactions.values()].map((tx) => ({
      txHash: tx.txHash,
      request: tx.request,
      status: tx.status,
      outcome: tx.outcome,
      ts: tx.ts,
      completeTs: tx.completeTs,
      height: tx.height,
    })),
  };
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
export function writeSnapshot(file: string, snapshot: EmulatorSnapshot): void {
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
    if (name.startsWith(prefix) && /^\d+\.tmp$/.test(name.slice(prefix.length))) {
      rmSync(join(dirname(real), name), { force: true });
    }
  }
}

/**
 * Takes the state file for this process: `FILE.lock` holds its pid. Another live emulator's lock
 * refuses the start naming the file and that process; a dead one's is taken over. Answers the
 * release.
 */
export function lockStateFile(file: string): () => void {
  const lock = `${target(file)}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new EmulatorStateFileError(
          file,
          `cannot be locked (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
      const holder = Number(readFileSync(lock, 'utf8').trim());
      if (Number.isSafeInteger(holder) && holder > 0 && alive(holder)) {
        throw new EmulatorStateFileError(
          file,
          `is in use by another kudos-emulator (process ${holder}, lock ${lock})`,
        );
      }
      rmSync(lock, { force: true }); // its emulator is gone: take the file over
    }
  }
  throw new EmulatorStateFileError(file, `cannot be locked (${lock})`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
