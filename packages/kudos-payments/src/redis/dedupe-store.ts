import { isRecord } from 'kudos-core';
import type { KudosRedisClient } from 'kudos-core/redis';
import { DELETE_IF_OWNER, type KudosRedisOptions, RedisStore } from 'kudos-core/redis';
import type {
  KudosClaimContext,
  KudosClaimResult,
  KudosDedupeStore,
  KudosKeptNotification,
  KudosUnreadableKept,
} from '../core/dedupe.js';
import { checkClaimContext } from '../core/dedupe.js';
import { keptRecordProblem } from '../stores/kept-record.js';
import { checkPrefix, dedupeKeys, KEPT_SHARDS, shardKeys } from './dedupe-keys.js';

// Lua (after a keep of member ARGV[m] at KEYS[2]) that forgets the oldest entries of the index
// KEYS[3] whose kept record expired: up to 8 a keep, so an index nobody lists (no unprocessed() or
// redrive() call) does not grow without bound. The records an index lists share its hash tag (one
// slot), so the script may read them. The index itself expires with its last record: its TTL is
// raised to each record's as it is kept, so it never outlives one.
const trimIndex = (m: number) => `local keptPrefix = string.sub(KEYS[2], 1, #KEYS[2] - #ARGV[${m}])
for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, 7)) do
  if redis.call('EXISTS', keptPrefix .. member) == 0 then redis.call('ZREM', KEYS[3], member) end
end
local ttl = tonumber(ARGV[${m - 1}])
if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end`;

// Lua that keeps the record ARGV[n] at KEYS[2] for ARGV[n+1] ms, indexed by arrival in KEYS[3] under
// ARGV[n+2], merged into the one kept already: attempts added, a null lastError keeps the kept one,
// the first arrival stays (as mergeKept() does in MemoryDedupeStore). The body travels as a JSON
// string inside the record, so Lua's JSON never re-encodes it. A kept record this store cannot read
// (edited by hand, another program's key, a key of another type: a hash, a list, where GET would
// answer WRONGTYPE) is replaced as if absent, never an error that would block the payment's every
// redelivery: `unreadable` says so, for the caller to report once.
const keepAt = (n: number) => `local new = cjson.decode(ARGV[${n}])
local unreadable = false
local raw = false
local kind = redis.call('TYPE', KEYS[2]).ok
if kind == 'string' then
  raw = redis.call('GET', KEYS[2])
elseif kind ~= 'none' then
  redis.call('DEL', KEYS[2])
  unreadable = true
end
if raw then
  local ok, old = pcall(cjson.decode, raw)
  if ok and type(old) == 'table' and type(old.attempts) == 'number' and type(old.receivedAt) == 'number' then
    new.attempts = old.attempts + new.attempts
    if new.lastError == cjson.null and type(old.lastError) == 'string' then new.lastError = old.lastError end
    if old.receivedAt < new.receivedAt then new.receivedAt = old.receivedAt end
    new.trusted = old.trusted == true or new.trusted
  else
    unreadable = true
  end
end
redis.call('SET', KEYS[2], cjson.encode(new), 'PX', ARGV[${n + 1}])
redis.call('ZADD', KEYS[3], new.receivedAt, ARGV[${n + 2}])
${trimIndex(n + 2)}`;

/** What the claim script answers when it replaced a kept record it could not read. */
const CLAIMED_OVER_UNREADABLE = 'claimed:unreadable';

// Claims KEYS[1] with token ARGV[1] for ARGV[2] ms unless it is held; answers what it found. With a
// record to keep (ARGV[3..5]), keeps it in the same step: one round trip per notification, not two.
const CLAIM = `local v = redis.call('GET', KEYS[1])
if v == 'done' then return 'done' end
if v ~= false then return 'processing' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[3] then
${keepAt(3)}
if unreadable then return '${CLAIMED_OVER_UNREADABLE}' end
end
return 'claimed'`;

// Renews the lease of KEYS[1] while ARGV[1] still holds it.
const EXTEND_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

// Marks KEYS[1] processed for ARGV[2] ms, unless another claimer holds it now (our lease expired),
// and forgets what was kept of it (KEYS[2], member ARGV[3] of the index KEYS[3]). It frees before
// it writes: Redis refuses a script's first write that may grow memory when it is full (noeviction),
// but not one after a write already made. So the DEL (which frees the kept record) goes first, and
// the 'done' is written even in a full Redis: a completed payment is never left to run again.
const COMPLETE_IF_OWNER = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or v == false then
  redis.call('DEL', KEYS[2])
  redis.call('ZREM', KEYS[3], ARGV[3])
  redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2])
  return 1
end
return 0`;

// Keeps the record ARGV[1..3] unless KEYS[1] is done: a late failure keeps nothing. Answers 2 when
// it replaced a kept record it could not read.
const KEEP_UNLESS_DONE = `if redis.call('GET', KEYS[1]) == 'done' then return 0 end
${keepAt(1)}
if unreadable then return 2 end
return 1`;

/** A kept record as stored: the body as JSON text. */
type StoredKept = Omit<KudosKeptNotification, 'body'> & { body: string };

/** A kept record read back, or why it is not one this store wrote. */
function readStored(value: string): KudosKeptNotification | string {
  let stored: unknown;
  try {
    stored = JSON.parse(value);
  } catch {
    return 'not JSON';
  }
  if (!isRecord(stored) || typeof stored.body !== 'string')
    return 'not a kept notification of RedisDedupeStore';
  const kept = {
    ...stored,
    lastError: typeof stored.lastError === 'string' ? stored.lastError : null,
    trusted: stored.trusted === true,
    source: stored.source === 'reconcile' ? 'reconcile' : 'webhook',
  };
  // The one check of every store (webhook/kept-record.ts).
  const problem = keptRecordProblem(kept);
  if (problem) return `not a kept notification of RedisDedupeStore: ${problem}`;
  let body: unknown;
  try {
    body = JSON.parse(stored.body);
  } catch {
    return 'its body is not JSON';
  }
  return { ...(kept as unknown as StoredKept), body };
}

/**
 * A webhook dedupe store in Redis, shared by every instance: an atomic claim with expiry (one
 * script: claimed, processing or done), a lease renewed while the handler runs, then `done` for the
 * dedupe TTL, or a release. Each claim carries the receiver's random token, chosen before the
 * command is sent: an instance whose lease expired never releases or overwrites another's claim, and
 * a claim whose command timed out (Redis slow) is released with its token once Redis gets to it, so
 * it does not hold the key for the lease. Unprocessed notifications are kept (a key each, with the
 * dedupe TTL, indexed by arrival) until their key is done. Redis down or slow: `store_unavailable`,
 * which the receiver answers with 503.
 */
export class RedisDedupeStore extends RedisStore implements KudosDedupeStore {
  private skipped = 0;

  /** Kept records read so far that were not this store's, left out of `kept()` (a count to watch). */
  get unreadable(): number {
    return this.skipped;
  }

  constructor(client: KudosRedisClient, options: KudosRedisOptions = {}) {
    super(client, options, 'kudos:webhook:', 'RedisDedupeStore');
    checkPrefix(this.redis.prefix, 'RedisDedupeStore');
  }

  /** Runs a script on the keys of `key` (the claim, its kept record, its index; one hash slot) with `args`. */
  private script(script: string, key: string, args: Array<string | number>): Promise<unknown> {
    const { claim, kept, index } = dedupeKeys(this.redis.prefix, key);
    return this.redis.script(script, [claim, kept, index], args.map(String));
  }

  readonly keepsOnClaim = true;

  async claim(key: string, leaseMs: number, claim: KudosClaimContext): Promise<KudosClaimResult> {
    checkClaimContext(claim, 'RedisDedupeStore');
    const args: Array<string | number> = [claim.token, Math.ceil(leaseMs)];
    if (claim.keep) args.push(this.stored(claim.keep.record), Math.ceil(claim.keep.ttlMs), key);
    let reply = await this.script(CLAIM, key, args);
    if (reply === CLAIMED_OVER_UNREADABLE) {
      this.told(key, claim.unreadable);
      reply = 'claimed';
    }
    if (reply === 'claimed' || reply === 'processing' || reply === 'done') return reply;
    throw new TypeError('RedisDedupeStore: unexpected answer to the claim script');
  }

  async extend(key: string, leaseMs: number, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'RedisDedupeStore');
    await this.script(EXTEND_IF_OWNER, key, [claim.token, Math.ceil(leaseMs)]);
  }

  async complete(key: string, ttlMs: number, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'RedisDedupeStore');
    await this.script(COMPLETE_IF_OWNER, key, [claim.token, Math.ceil(ttlMs), key]);
  }

  async release(key: string, claim: KudosClaimContext): Promise<void> {
    checkClaimContext(claim, 'RedisDedupeStore');
    await this.redis.script(DELETE_IF_OWNER, [dedupeKeys(this.redis.prefix, key).claim], [claim.token]);
  }

  async keep(record: KudosKeptNotification, ttlMs: number, unreadable?: KudosUnreadableKept): Promise<void> {
    const reply = await this.script(KEEP_UNLESS_DONE, record.key, [
      this.stored(record),
      Math.ceil(ttlMs),
      record.key,
    ]);
    if (Number(reply) === 2) this.told(record.key, unreadable);
  }

  /** Counts and tells a kept record of `key` that a claim or keep replaced because it could not read it. */
  private told(key: string, unreadable: KudosUnreadableKept | undefined): void {
    this.skipped++;
    unreadable?.(dedupeKeys(this.redis.prefix, key).kept, 'not a kept notification of RedisDedupeStore');
  }

  /** A kept record as stored: JSON, its body as a JSON string inside. */
  private stored(record: KudosKeptNotification): string {
    const stored: StoredKept = { ...record, body: JSON.stringify(record.body) };
    return JSON.stringify(stored);
  }

  async checkpoint(name: string): Promise<string | null> {
    const key = this.redis.key(`checkpoint:${name}`);
    const value = await this.redis.run(['GET', key], key);
    return typeof value === 'string' ? value : null;
  }

  async saveCheckpoint(name: string, value: string, ttlMs: number): Promise<void> {
    const key = this.redis.key(`checkpoint:${name}`);
    await this.redis.run(['SET', key, value, 'PX', String(Math.ceil(ttlMs))], key);
  }

  async kept(limit: number, unreadable?: KudosUnreadableKept): Promise<KudosKeptNotification[]> {
    const count = Math.floor(limit);
    if (!(count >= 1)) return []; // (ZRANGE 0 -1 would be every entry)
    // The oldest `count` of each shard, then the oldest `count` of them all.
    const shards = await Promise.all(
      Array.from({ length: KEPT_SHARDS }, async (_, shard) => {
        const { index } = shardKeys(this.redis.prefix, shard);
        const reply = await this.redis.run(['ZRANGE', index, '0', String(count - 1), 'WITHSCORES'], index);
        return scored(reply).map((entry) => ({ ...entry, shard }));
      }),
    );
    const chosen = shards
      .flat()
      .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : 1))
      .slice(0, count);
    const found = new Map<string, KudosKeptNotification>();
    for (let shard = 0; shard < KEPT_SHARDS; shard++) {
      const members = chosen.filter((c) => c.shard === shard).map((c) => c.member);
      if (members.length > 0) await this.readShard(shard, members, found, unreadable);
    }
    return chosen.flatMap((c) => found.get(c.member) ?? []);
  }

  /** Reads the kept records of `members` (all of `shard`) into `found`, and tidies the index. */
  private async readShard(
    shard: number,
    members: string[],
    found: Map<string, KudosKeptNotification>,
    unreadable: KudosUnreadableKept | undefined,
  ): Promise<void> {
    const { index, kept } = shardKeys(this.redis.prefix, shard);
    const claimOf = (member: string) => dedupeKeys(this.redis.prefix, member).claim;
    const gone: string[] = [];
    // In slices: one MGET of a million keys would block Redis for everything else meanwhile. The
    // claims are read beside the records: a record whose key is done is not unprocessed (a key that
    // is done keeps nothing; only a failover that lost a write can leave one behind).
    for (let at = 0; at < members.length; at += 500) {
      const slice = members.slice(at, at + 500);
      const values = await this.redis.run(['MGET', ...slice.map(kept), ...slice.map(claimOf)], index);
      const list: unknown[] = Array.isArray(values) ? values : [];
      for (const [i, member] of slice.entries()) {
        const value = list[i];
        if (typeof value !== 'string' || list[slice.length + i] === 'done') {
          gone.push(member);
          continue;
        }
        const record = readStored(value);
        // One record that is not what this store wrote (edited by hand, another program's key) is
        // left out and told, never fatal to the others: unprocessed() and redrive() list the rest.
        if (typeof record !== 'string') {
          found.set(member, record);
          continue;
        }
        this.skipped++;
        unreadable?.(kept(member), record);
      }
    }
    // Records that expired leave their index entry behind: tidy it here.
    for (let at = 0; at < gone.length; at += 1000)
      await this.redis.run(['ZREM', index, ...gone.slice(at, at + 1000)], index);
  }
}

/** The members and scores of a `ZRANGE ... WITHSCORES` reply: flat under RESP2, pairs under RESP3. */
function scored(reply: unknown): Array<{ member: string; score: number }> {
  if (!Array.isArray(reply)) return [];
  const pairs: Array<[unknown, unknown]> = [];
  if (reply.every((item) => Array.isArray(item))) {
    for (const item of reply as unknown[][]) pairs.push([item[0], item[1]]);
  } else {
    for (let i = 0; i + 1 < reply.length; i += 2) pairs.push([reply[i], reply[i + 1]]);
  }
  return pairs.flatMap(([member, score]) =>
    typeof member === 'string' && Number.isFinite(Number(score)) ? [{ member, score: Number(score) }] : [],
  );
}
