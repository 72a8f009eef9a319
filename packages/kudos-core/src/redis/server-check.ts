import { KudosError, storeUnusable } from '../base/errors.js';
import type { KudosRedisAdapter } from './adapter.js';

// What every Redis store checks at its first call: that the server will not evict its keys, and
// that it can write there. An evicted completed key makes a redelivered payment run twice; an
// evicted kept record loses a payment that failed; both without a word. Redis says which policy it
// runs in `INFO memory`, which answers even where `CONFIG` is disabled (managed Redis).

/** The one `maxmemory-policy` that never evicts a key: when full, Redis refuses writes instead. */
const SAFE_POLICY = 'noeviction';

/** What the check needs of its store. */
export interface ServerCheck {
  /** The store's name, for messages. */
  who: string;
  /** Where the server is, when the client says (`host:port`). */
  server: string | undefined;
  /** Sends a command to every master of a cluster, with the time limit; undefined for one server. */
  eachMaster: KudosRedisAdapter['eachMaster'];
  /** Sends one command with the store's time limit (errors become `store_unavailable`). */
  send(args: string[], key: string | undefined): Promise<unknown>;
  /** A key of the store's own that no other key can be (it is written once, with a TTL). */
  probeKey: string;
  /** The app accepts an evicting policy (a Redis used for nothing else, its memory watched). */
  acceptEviction: boolean;
  /** Told once: a policy that cannot be read, or an evicting one the app accepts. */
  warn(message: string): void;
}

/** The text of `field` in an `INFO` reply, or undefined. */
function infoField(reply: unknown, field: string): string | undefined {
  const text = typeof reply === 'string' ? reply : Buffer.isBuffer(reply) ? reply.toString() : '';
  return new RegExp(`^${field}:(\\S*)`, 'm').exec(text)?.[1];
}

/** Redis's own error reply (an unknown or renamed command, an ACL refusal), as opposed to no answer. */
function replyError(error: unknown): string | undefined {
  const cause = error instanceof KudosError ? error.cause : error;
  const message = cause instanceof Error ? cause.message : '';
  return /^(ERR|NOPERM|NOAUTH|WRONGPASS|READONLY|OOM|unknown command)\b/i.test(message) ? message : undefined;
}

/** The `maxmemory_policy` of each master, or why it could not be read. */
async function policies(check: ServerCheck): Promise<Array<{ node: string; policy: string | undefined }>> {
  const args = ['INFO', 'memory'];
  const server = check.server ?? 'the Redis server';
  try {
    const replies = check.eachMaster
      ? await check.eachMaster(args)
      : [{ node: server, reply: await check.send(args, undefined) }];
    return replies.map(({ node, reply }) => ({ node, policy: infoField(reply, 'maxmemory_policy') }));
  } catch (error) {
    const refused = replyError(error);
    if (refused === undefined) throw error; // no answer: checked again at the next call
    return [{ node: server, policy: undefined }];
  }
}

/**
 * The eviction policy of every master, read now: the refusal (`store_unusable`, naming the server and
 * its policy) when one may evict and the app does not accept it, else undefined. A policy it cannot
 * read, or one the app accepts, is warned of. Rejects when Redis does not answer.
 */
export async function evictionRefusal(check: ServerCheck): Promise<KudosError | undefined> {
  for (const { node, policy } of await policies(check)) {
    if (policy === undefined) {
      check.warn(
        `${check.who}: could not read the eviction policy of Redis ${node} (INFO memory); make sure its maxmemory-policy is ${SAFE_POLICY}, or an evicted key can run a payment twice (see docs/scaling.md)`,
      );
    } else if (policy !== SAFE_POLICY && check.acceptEviction) {
      check.warn(
        `${check.who}: Redis ${node} has maxmemory-policy ${policy}, accepted (acceptEviction: true): an evicted key can run a payment twice or lose a kept one; watch its used_memory (docs/scaling.md)`,
      );
    } else if (policy !== SAFE_POLICY) {
      return storeUnusable(
        `${check.who}: Redis ${node} has maxmemory-policy ${policy}, which may evict this store's keys when memory runs short (a processed payment would then run again, a kept one be lost). Set maxmemory-policy ${SAFE_POLICY} (CONFIG SET maxmemory-policy ${SAFE_POLICY}, or your provider's parameter group), or pass acceptEviction: true if this Redis holds nothing else and an alert watches its used_memory (docs/scaling.md)`,
      );
    }
  }
  return undefined;
}

/**
 * Checks, on every master, that the eviction policy is `noeviction` (else refuses, unless the app
 * accepts eviction; a policy it cannot read is warned of), then writes one key: a read-only replica
 * or an ACL that forbids writing is refused at once, naming the server.
 */
export async function checkServer(check: ServerCheck): Promise<void> {
  const refusal = await evictionRefusal(check);
  if (refusal) throw refusal;
  try {
    await check.send(['SET', check.probeKey, String(Date.now()), 'PX', '60000'], check.probeKey);
  } catch (error) {
    const refused = replyError(error);
    if (refused !== undefined && /^(READONLY|NOPERM|NOAUTH|WRONGPASS)\b/.test(refused)) {
      const server = check.server ? `Redis ${check.server}` : 'this Redis';
      throw storeUnusable(`${check.who} cannot write to ${server}: ${refused}`, error);
    }
    throw error;
  }
}

/** Room a write needs below `maxmemory`: a kept notification is up to 64 kB, its command as large. */
const WRITE_ROOM_BYTES = 128 * 1024;

/**
 * Why Redis refuses writes now, read from `INFO memory` on every master (a read, which a full Redis
 * still answers): one whose `used_memory` leaves less than a notification's room below its
 * `maxmemory` refuses the next write with OOM. Undefined when every master has room.
 */
export async function fullProblem(check: ServerCheck): Promise<string | undefined> {
  const args = ['INFO', 'memory'];
  const replies = check.eachMaster
    ? await check.eachMaster(args)
    : [{ node: check.server ?? 'the Redis server', reply: await check.send(args, undefined) }];
  for (const { node, reply } of replies) {
    const used = Number(infoField(reply, 'used_memory'));
    const max = Number(infoField(reply, 'maxmemory'));
    if (max > 0 && used + WRITE_ROOM_BYTES > max) {
      return `Redis ${node} is full (used_memory ${used} of maxmemory ${max}): it refuses writes (OOM) until memory is freed or raised`;
    }
  }
  return undefined;
}
