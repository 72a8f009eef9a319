import { randomBytes } from 'node:crypto';
import type { KudosClaimResult, KudosDedupeStore } from '../webhook/dedupe.js';
import { DELETE_IF_OWNER, type KudosRedisClient, type KudosRedisOptions, RedisKeys } from './command.js';

// Claims KEYS[1] with token ARGV[1] for ARGV[2] ms unless it is held; answers what it found.
const CLAIM = `local v = redis.call('GET', KEYS[1])
if v == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 'claimed' end
if v == 'done' then return 'done' end
return 'processing'`;

// Renews the lease of KEYS[1] while ARGV[1] still holds it.
const EXTEND_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

// Marks KEYS[1] processed for ARGV[2] ms, unless another claimer holds it now (our lease expired).
const COMPLETE_IF_OWNER = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or v == false then redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2]) return 1 end
return 0`;

/**
 * A webhook dedupe store in Redis, shared by every instance: an atomic claim with expiry (one
 * script: claimed, processing or done), a lease renewed while the handler runs, then `done` for the
 * dedupe TTL, or a release. Each claim carries a random token,
 * so an instance whose lease expired never releases or overwrites another instance's claim.
 * Redis down or slow: `redis_unavailable`, which the receiver answers with 503.
 */
export class RedisDedupeStore implements KudosDedupeStore {
  private readonly redis: RedisKeys;
  private readonly tokens = new Map<string, string>();

  constructor(client: KudosRedisClient, options: KudosRedisOptions = {}) {
    this.redis = new RedisKeys(client, options, 'kudos:webhook:', 'RedisDedupeStore');
  }

  /** Runs one of the scripts on the key with the claim's token and a duration in milliseconds. */
  private script(script: string, key: string, token: string, ms?: number): Promise<unknown> {
    const args = ['EVAL', script, '1', this.redis.key(key), token];
    if (ms !== undefined) args.push(String(Math.ceil(ms)));
    return this.redis.run(...args);
  }

  async claim(key: string, leaseMs: number): Promise<KudosClaimResult> {
    const token = randomBytes(12).toString('base64url');
    const reply = await this.script(CLAIM, key, token, leaseMs);
    if (reply === 'claimed') this.tokens.set(key, token);
    if (reply === 'claimed' || reply === 'processing' || reply === 'done') return reply;
    throw new TypeError('RedisDedupeStore: unexpected answer to the claim script');
  }

  async extend(key: string, leaseMs: number): Promise<void> {
    const token = this.tokens.get(key);
    if (token) await this.script(EXTEND_IF_OWNER, key, token, leaseMs);
  }

  async complete(key: string, ttlMs: number): Promise<void> {
    const token = this.tokens.get(key) ?? '';
    this.tokens.delete(key);
    await this.script(COMPLETE_IF_OWNER, key, token, ttlMs);
  }

  async release(key: string): Promise<void> {
    const token = this.tokens.get(key);
    this.tokens.delete(key);
    if (token) await this.script(DELETE_IF_OWNER, key, token);
  }
}
