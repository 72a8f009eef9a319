import { randomBytes } from 'node:crypto';
import type { KudosDedupeStore } from '../webhook/dedupe.js';
import { DELETE_IF_OWNER, type KudosRedisClient, type KudosRedisOptions, RedisKeys } from './command.js';

// Marks KEYS[1] processed for ARGV[2] ms, unless another claimer holds it now (our lease expired).
const COMPLETE_IF_OWNER = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or v == false then redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2]) return 1 end
return 0`;

/**
 * A webhook dedupe store in Redis, shared by every instance: an atomic claim with expiry
 * (`SET NX PX`), then `done` for the dedupe TTL, or a release. Each claim carries a random token,
 * so an instance whose lease expired never releases or overwrites another instance's claim.
 * Redis down or slow: `redis_unavailable`, which the receiver answers with 503.
 */
export class RedisDedupeStore implements KudosDedupeStore {
  private readonly redis: RedisKeys;
  private readonly tokens = new Map<string, string>();

  constructor(client: KudosRedisClient, options: KudosRedisOptions = {}) {
    this.redis = new RedisKeys(client, options, 'kudos:webhook:', 'RedisDedupeStore');
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const token = randomBytes(12).toString('base64url');
    const reply = await this.redis.run(
      'SET',
      this.redis.key(key),
      token,
      'NX',
      'PX',
      String(Math.ceil(ttlMs)),
    );
    if (reply !== 'OK') return false;
    this.tokens.set(key, token);
    return true;
  }

  async complete(key: string, ttlMs: number): Promise<void> {
    const token = this.tokens.get(key) ?? '';
    this.tokens.delete(key);
    await this.redis.run(
      'EVAL',
      COMPLETE_IF_OWNER,
      '1',
      this.redis.key(key),
      token,
      String(Math.ceil(ttlMs)),
    );
  }

  async release(key: string): Promise<void> {
    const token = this.tokens.get(key);
    this.tokens.delete(key);
    if (token) await this.redis.run('EVAL', DELETE_IF_OWNER, '1', this.redis.key(key), token);
  }
}
