import type {
  KudosOrderStore,
  KudosOrderStoreRecord,
  KudosOrderStoreWrite,
} from '../webhook/payments/order-store.js';
import type { KudosRedisClient } from './adapter.js';
import { type KudosRedisOptions, RedisKeys } from './command.js';
import { checkPrefix } from './dedupe-keys.js';

/** Options of {@link RedisOrderStore}. */
export type RedisOrderStoreOptions = KudosRedisOptions;

// The key layout: one hash tag for every key, so that a record and the index that lists it are in
// one slot and each script runs on one node of a cluster (the orders of one shop are few):
//
//     <prefix>{orders}:r:<id>    hash { v: the record's text, n: its version }
//     <prefix>{orders}:listed    sorted set: listed IDs by the time they were first listed

// Inserts KEYS[1] unless it exists: value ARGV[1], TTL ARGV[2] ms ('' for none), listed in KEYS[2]
// when ARGV[3] is '1', at ARGV[4] under ARGV[5].
const INSERT = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'n', '1')
if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if ARGV[3] == '1' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5]) end
return 1`;

// Replaces KEYS[1] only at version ARGV[1]: value ARGV[2], TTL ARGV[3] ('' for none), listed when
// ARGV[4] is '1' (keeping its place) or not, at ARGV[5] under ARGV[6].
const REPLACE = `if redis.call('HGET', KEYS[1], 'n') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'n', tostring(tonumber(ARGV[1]) + 1))
if ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
if ARGV[4] == '1' then redis.call('ZADD', KEYS[2], 'NX', ARGV[5], ARGV[6]) else redis.call('ZREM', KEYS[2], ARGV[6]) end
return 1`;

const ttlArg = (write: KudosOrderStoreWrite) =>
  write.ttlMs === null ? '' : String(Math.max(1, Math.ceil(write.ttlMs)));

/**
 * The orders and payment decisions of `kudosPayments()` in Redis, shared by every instance: node-redis
 * or ioredis, one server, Sentinel or Cluster (all keys in one hash slot). Each change is one Lua
 * script, so two instances never both move an order. Needs a Redis that does not evict these keys
 * (`maxmemory-policy noeviction`): see docs/scaling.md.
 */
export class RedisOrderStore implements KudosOrderStore {
  private readonly redis: RedisKeys;
  private readonly index: string;

  constructor(client: KudosRedisClient, options: RedisOrderStoreOptions = {}) {
    this.redis = new RedisKeys(client, options, 'kudos:orders:', 'RedisOrderStore');
    checkPrefix(this.redis.prefix, 'RedisOrderStore');
    this.index = this.redis.key('{orders}:listed');
  }

  private recordKey(id: string): string {
    return this.redis.key(`{orders}:r:${id}`);
  }

  async insert(id: string, value: string, write: KudosOrderStoreWrite): Promise<boolean> {
    const reply = await this.redis.script(
      INSERT,
      [this.recordKey(id), this.index],
      [value, ttlArg(write), write.listed ? '1' : '0', String(Date.now()), id],
    );
    return Number(reply) === 1;
  }

  async read(id: string): Promise<KudosOrderStoreRecord | undefined> {
    const key = this.recordKey(id);
    const reply = await this.redis.run(['HMGET', key, 'v', 'n'], key);
    if (!Array.isArray(reply)) return undefined;
    const [value, version] = reply as unknown[];
    if (value === null || value === undefined || version === null || version === undefined) return undefined;
    return { value: String(value), version: Number(version) };
  }

  async replace(id: string, version: number, value: string, write: KudosOrderStoreWrite): Promise<boolean> {
    const reply = await this.redis.script(
      REPLACE,
      [this.recordKey(id), this.index],
      [String(version), value, ttlArg(write), write.listed ? '1' : '0', String(Date.now()), id],
    );
    return Number(reply) === 1;
  }

  async listed(limit: number): Promise<Array<{ id: string; value: string }>> {
    const count = Math.floor(limit);
    if (!(count >= 1)) return []; // ZRANGE 0 -1 would list everything
    const ids = await this.redis.run(['ZRANGE', this.index, '0', String(count - 1)], this.index);
    const found: Array<{ id: string; value: string }> = [];
    for (const id of Array.isArray(ids) ? ids.map(String) : []) {
      const record = await this.read(id);
      if (record) found.push({ id, value: record.value });
      // Its record expired (listed with a TTL): the index forgets it too.
      else await this.redis.run(['ZREM', this.index, id], this.index);
    }
    return found;
  }
}
