import type { KudosRedisClient } from 'kudos-core/redis';
import { type KudosRedisOptions, RedisStore } from 'kudos-core/redis';
import type {
  KudosOrderStore,
  KudosOrderStoreChange,
  KudosOrderStoreRecord,
} from '../payments/order-store.js';
import { checkPrefix } from './dedupe-keys.js';

/** Options of {@link RedisOrderStore}. */
export type RedisOrderStoreOptions = KudosRedisOptions;

// The key layout: one hash tag for every key, so that a record and the index that lists it are in
// one slot and each script runs on one node of a cluster (the orders of one shop are few):
//
//     <prefix>{orders}:r:<id>             hash { v: the record's text, n: its version }
//     <prefix>{orders}:listed             sorted set: listed IDs by the time they were first listed
//     <prefix>{orders}:listed:<kind>      the same, for the IDs of one kind (what comes before the
//                                         first ':' of the ID, ':' included): its oldest, for listedCount()
//     <prefix>{orders}:until:<kind>       sorted set: the listed IDs of one kind by when their record
//                                         expires ('inf' for none): what listedCount() counts, exactly

// Applies every change or none: KEYS[1..n] are the records, KEYS[n+1] the index; ARGV[1] is now,
// ARGV[2] n, then per change its ID, the version read ('' for an insert), the value, the TTL in ms
// ('' for none) and '1' when listed, and last the by-expiry indexes' prefix. A listed record keeps its
// place; an insert takes a new one.
const WRITE = `local n = tonumber(ARGV[2])
for i = 1, n do
  local want = ARGV[(i - 1) * 5 + 4]
  local have = redis.call('HGET', KEYS[i], 'n')
  if want == '' then
    if have then return 0 end
  elseif have ~= want then
    return 0
  end
end
local index = KEYS[n + 1]
for i = 1, n do
  local at = (i - 1) * 5 + 3
  local id, want, value, ttl, listed = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4]
  local kind = string.match(id, '^[^:]*:') or ''
  local version = 1
  if want ~= '' then version = tonumber(want) + 1 end
  redis.call('HSET', KEYS[i], 'v', value, 'n', tostring(version))
  if ttl ~= '' then redis.call('PEXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
  if listed ~= '1' then
    redis.call('ZREM', index, id)
    redis.call('ZREM', index .. ':' .. kind, id)
    redis.call('ZREM', ARGV[3 + n * 5] .. kind, id)
  else
    local mode = 'NX'
    if want == '' then mode = 'CH' end
    redis.call('ZADD', index, mode, ARGV[1], id)
    redis.call('ZADD', index .. ':' .. kind, mode, ARGV[1], id)
    local expires = 'inf'
    if ttl ~= '' then expires = tostring(tonumber(ARGV[1]) + tonumber(ttl)) end
    redis.call('ZADD', ARGV[3 + n * 5] .. kind, expires, id)
  end
end
return 1`;

// The oldest ARGV[1] listed records of the index KEYS[1], in one round trip whatever their number:
// each record's ID and text (its key is ARGV[2] .. ID, in the index's slot: the same hash tag); an ID
// whose record expired is forgotten by the index too.
const LISTED = `local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for _, id in ipairs(ids) do
  local value = redis.call('HGET', ARGV[2] .. id, 'v')
  if value then
    out[#out + 1] = id
    out[#out + 1] = value
  else
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[1] .. ':' .. (string.match(id, '^[^:]*:') or ''), id)
    redis.call('ZREM', ARGV[3] .. (string.match(id, '^[^:]*:') or ''), id)
  end
end
return out`;

// How many live records of one kind are listed (KEYS[2], by expiry: the expired ones are dropped
// first, then the rest counted), and the oldest one's listing time (KEYS[1], by listing time: expired
// records at its head are forgotten, at most ARGV[3] a call; ARGV[1] is the record keys' prefix,
// ARGV[2] now). A bounded number of commands whatever the number listed.
const COUNT = `redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
for _ = 1, tonumber(ARGV[3]) do
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)
  if #head == 0 or redis.call('EXISTS', ARGV[1] .. head[1]) == 1 then break end
  redis.call('ZREM', KEYS[1], head[1])
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { redis.call('ZCARD', KEYS[2]), oldest[2] or '' }`;

/** Most expired records one listedCount() forgets (the rest go at the next call, or by listed()). */
const COUNT_CLEANS = 256;

/**
 * The orders and payment decisions of `kudosPayments()` in Redis, shared by every instance: node-redis
 * or ioredis, one server, Sentinel or Cluster (all keys in one hash slot). Each change is one Lua
 * script, so two instances never both move an order. Needs a Redis that does not evict these keys
 * (`maxmemory-policy noeviction`): see docs/scaling.md.
 */
export class RedisOrderStore extends RedisStore implements KudosOrderStore {
  private readonly index: string;
  /** The prefix of the by-expiry indexes of each kind (`…{orders}:until:` and the kind). */
  private readonly until: string;

  constructor(client: KudosRedisClient, options: RedisOrderStoreOptions = {}) {
    super(client, options, 'kudos:orders:', 'RedisOrderStore');
    checkPrefix(this.redis.prefix, 'RedisOrderStore');
    this.index = this.redis.key('{orders}:listed');
    this.until = this.redis.key('{orders}:until:');
  }

  private recordKey(id: string): string {
    return this.redis.key(`{orders}:r:${id}`);
  }

  async read(id: string): Promise<KudosOrderStoreRecord | undefined> {
    const key = this.recordKey(id);
    const reply = await this.redis.run(['HMGET', key, 'v', 'n'], key);
    if (!Array.isArray(reply)) return undefined;
    const [value, version] = reply as unknown[];
    if (value === null || value === undefined || version === null || version === undefined) return undefined;
    return { value: String(value), version: Number(version) };
  }

  async write(changes: readonly KudosOrderStoreChange[]): Promise<boolean> {
    const args = [String(Date.now()), String(changes.length)];
    for (const c of changes) {
      const ttl = c.ttlMs === null ? '' : String(Math.max(1, Math.ceil(c.ttlMs)));
      args.push(c.id, c.version === null ? '' : String(c.version), c.value, ttl, c.listed ? '1' : '0');
    }
    args.push(this.until);
    const keys = [...changes.map((c) => this.recordKey(c.id)), this.index];
    return Number(await this.redis.script(WRITE, keys, args)) === 1;
  }

  /**
   * How many records of IDs starting with `prefix` are listed, and the oldest one's listing time: one
   * script on the index of that kind (`prefix` must be a kind: what comes before the first ':' of an
   * ID, ':' included), a bounded number of commands whatever their number.
   */
  async listedCount(prefix: string): Promise<{ count: number; oldestListedAt: number | null }> {
    if (!/^[^:]*:$/.test(prefix))
      throw new TypeError('RedisOrderStore.listedCount() takes a kind: "payment:"');
    const keys = [`${this.index}:${prefix}`, `${this.until}${prefix}`];
    const args = [this.recordKey(''), String(Date.now()), String(COUNT_CLEANS)];
    const reply = await this.redis.script(COUNT, keys, args);
    const [count, oldest] = Array.isArray(reply) ? reply.map(String) : [];
    return { count: Number(count ?? 0), oldestListedAt: oldest ? Number(oldest) : null };
  }

  /** The oldest `limit` listed records: one script, one round trip, whatever their number. */
  async listed(limit: number): Promise<Array<{ id: string; value: string }>> {
    const count = Math.floor(limit);
    if (!(count >= 1)) return []; // ZRANGE 0 -1 would list everything
    const args = [String(count), this.recordKey(''), this.until];
    const reply = await this.redis.script(LISTED, [this.index], args);
    const flat = Array.isArray(reply) ? reply.map(String) : [];
    const found: Array<{ id: string; value: string }> = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      found.push({ id: flat[i] as string, value: flat[i + 1] as string });
    return found;
  }
}
