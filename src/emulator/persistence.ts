import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isRecord } from '../guards.js';
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
  const lists = ['users', 'clients', 'agents', 'grants', 'refreshTokens', 'activeRefresh', 'transactions'];
  if (
    !isRecord(json) ||
    json.format !== FORMAT ||
    typeof json.jwtSecret !== 'string' ||
    typeof json.clockOffsetMs !== 'number' ||
    !lists.every((name) => Array.isArray(json[name]))
  ) {
    throw new EmulatorStateFileError(file, `is not a kudos-emulator state file (format ${FORMAT})`);
  }
  return json as unknown as EmulatorSnapshot;
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

/**
 * Writes a snapshot atomically: to a temporary file beside it, then renamed over it, so a crash
 * mid-write never leaves a half-written state file.
 */
export function writeSnapshot(file: string, snapshot: EmulatorSnapshot): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(snapshot, null, 1)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}
