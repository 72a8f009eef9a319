import { checkPositive, isObjectLike } from 'kudos-core';
import type { KudosRedisClient } from 'kudos-core/redis';
import { type KudosRedisOptions, RedisStore } from 'kudos-core/redis';
import type { KudosTokenStore } from '../tokens/store.js';
import type { KudosTokenSet } from '../tokens/token-set.js';

/** Options of {@link RedisTokenStore}. */
export interface RedisTokenStoreOptions extends KudosRedisOptions {
  /**
   * Expire a stored token set after this long without an update, in milliseconds; default 30 days
   * ({@link DEFAULT_TOKEN_TTL_MS}), so the sets of users who never come back do not fill Redis.
   * `null`: never (then delete them yourself).
   */
  ttlMs?: number | null;
}

/**
 * Default lifetime of a token set without an update: 30 days. The service does not say how long a
 * refresh token lasts; a user away longer signs in again (one redirect), which costs less than a
 * Redis that only grows.
 */
export const DEFAULT_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

function isTokenSet(value: unknown): value is KudosTokenSet {
  if (!isObjectLike(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.accessToken === 'string' &&
    (v.refreshToken === undefined || typeof v.refreshToken === 'string') &&
    typeof v.user === 'string' &&
    typeof v.expiresAt === 'number' &&
    (v.scope === undefined || (Array.isArray(v.scope) && v.scope.every((s) => typeof s === 'string')))
  );
}

/**
 * A token store in Redis, shared by every instance. Token sets are stored as JSON: protect the
 * Redis server (network, ACL, TLS) as you would a database of credentials.
 */
export class RedisTokenStore extends RedisStore implements KudosTokenStore {
  private readonly ttlMs: number | undefined;

  constructor(client: KudosRedisClient, options: RedisTokenStoreOptions = {}) {
    super(client, options, 'kudos:tokens:', 'RedisTokenStore');
    const ttl = options?.ttlMs === undefined ? DEFAULT_TOKEN_TTL_MS : options.ttlMs;
    this.ttlMs = ttl === null ? undefined : checkPositive(ttl, 'RedisTokenStore option "ttlMs"');
  }

  async get(userId: string): Promise<KudosTokenSet | undefined> {
    const key = this.redis.key(userId);
    const reply = await this.redis.run(['GET', key], key);
    if (typeof reply !== 'string') return undefined;
    try {
      const value: unknown = JSON.parse(reply);
      return isTokenSet(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async set(userId: string, tokens: KudosTokenSet): Promise<void> {
    const expiry = this.ttlMs === undefined ? [] : ['PX', String(Math.ceil(this.ttlMs))];
    const key = this.redis.key(userId);
    await this.redis.run(['SET', key, JSON.stringify(tokens), ...expiry], key);
  }

  async delete(userId: string): Promise<void> {
    const key = this.redis.key(userId);
    await this.redis.run(['DEL', key], key);
  }
}
