import { randomBytes } from 'node:crypto';
import { checkPositive, KudosError } from 'kudos-core';
import type { KudosRedisClient } from 'kudos-core/redis';
import { DELETE_IF_OWNER, type KudosRedisOptions, RedisStore } from 'kudos-core/redis';
import type { KudosRefreshLock } from '../tokens/lock.js';

/** Options of {@link RedisRefreshLock}. */
export interface RedisRefreshLockOptions extends KudosRedisOptions {
  /** Pause between attempts to take a held lock; default 20 ms (with jitter). */
  retryDelayMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A refresh lock that spans processes: `SET NX PX` with a random token, released with a
 * compare-and-delete. The lock expires after `ttlMs`, so a crashed holder blocks the others for
 * at most that long; a waiter gives up after twice that (`lock_timeout`, 503).
 */
export class RedisRefreshLock extends RedisStore implements KudosRefreshLock {
  private readonly retryDelayMs: number;

  constructor(client: KudosRedisClient, options: RedisRefreshLockOptions = {}) {
    super(client, options, 'kudos:lock:', 'RedisRefreshLock');
    this.retryDelayMs = checkPositive(options?.retryDelayMs ?? 20, 'RedisRefreshLock option "retryDelayMs"');
  }

  async withLock<T>(key: string, ttlMs: number, fn: () => Promise<T>): Promise<T> {
    const lockKey = this.redis.key(key);
    const token = randomBytes(12).toString('base64url');
    const giveUpAt = Date.now() + 2 * ttlMs;
    for (;;) {
      const reply = await this.redis.run(
        ['SET', lockKey, token, 'NX', 'PX', String(Math.ceil(ttlMs))],
        lockKey,
      );
      if (reply === 'OK') break;
      if (Date.now() >= giveUpAt) {
        throw new KudosError('lock_timeout', {
          message: `could not take the refresh lock within ${2 * ttlMs} ms`,
        });
      }
      await sleep(this.retryDelayMs * (0.5 + Math.random()));
    }
    try {
      return await fn();
    } finally {
      await this.redis.script(DELETE_IF_OWNER, [lockKey], [token]).catch(() => undefined);
    }
  }
}
