import type { KudosRedisClient } from 'kudos-core/redis';
import { type KudosRedisOptions, RedisStore } from 'kudos-core/redis';

/**
 * The states a sign-in callback has used, shared by every instance (`usedStates` of
 * `KudosCookieStateStore`): `SET NX PX`, one key per state until it expires, so a state replayed
 * against any instance within its lifetime signs nobody in.
 */
export class RedisUsedStates extends RedisStore {
  constructor(client: KudosRedisClient, options: KudosRedisOptions = {}) {
    super(client, options, 'kudos:state:', 'RedisUsedStates');
  }

  /** Marks `state` used for `ttlMs`: true the first time, false when any instance used it already. */
  async markUsed(state: string, ttlMs: number): Promise<boolean> {
    const key = this.redis.key(state);
    const reply = await this.redis.run(
      ['SET', key, '1', 'NX', 'PX', String(Math.max(1, Math.ceil(ttlMs)))],
      key,
    );
    return reply === 'OK';
  }
}
