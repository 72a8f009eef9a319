import { createHash } from 'node:crypto';
import { KudosError } from '../base/errors.js';
import { checkPositive } from '../base/numbers.js';

/**
 * The one thing passport-kudos needs of a Redis client: send a raw command. A connected
 * node-redis client (v4 or newer) has it; for ioredis, pass `{ sendCommand: (args) => redis.call(...args) }`.
 * Connections are the app's: passport-kudos never opens or closes one.
 */
export interface KudosRedisClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Options shared by the Redis stores. */
export interface KudosRedisOptions {
  prefix?: string;
  /** Longest wait for one command, in milliseconds; default 2000. Then `redis_unavailable`. */
  commandTimeoutMs?: number;
}

/** Default time limit of one Redis command. */
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

/**
 * Sends one command with a time limit. A failure or a timeout becomes `KudosError`
 * `redis_unavailable` (503), so callers answer "try again later" instead of hanging.
 */
async function runCommand(client: KudosRedisClient, args: string[], timeoutMs: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([client.sendCommand(args), timeout]);
  } catch (cause) {
    throw new KudosError(
      `Redis is unavailable (${args[0]}): ${cause instanceof Error ? cause.message : 'failed'}`,
      {
        code: 'redis_unavailable',
        status: 503,
        cause,
      },
    );
  } finally {
    clearTimeout(timer);
  }
}

/** Deletes KEYS[1] only while it holds ARGV[1]: nobody releases a claim that is no longer theirs. */
export const DELETE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** What every Redis store holds: the app's client, its key prefix and its command time limit. */
export class RedisKeys {
  private readonly client: KudosRedisClient;
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(client: unknown, options: KudosRedisOptions, defaultPrefix: string, who: string) {
    if (typeof (client as KudosRedisClient | undefined)?.sendCommand !== 'function') {
      throw new TypeError(`${who} requires a connected Redis client (with sendCommand)`);
    }
    this.client = client as KudosRedisClient;
    const prefix: unknown = options?.prefix ?? defaultPrefix;
    if (typeof prefix !== 'string') throw new TypeError(`${who} option "prefix" must be a string`);
    this.prefix = prefix;
    this.timeoutMs = checkPositive(
      options?.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      `${who} option "commandTimeoutMs"`,
    );
  }

  key(name: string): string {
    return this.prefix + name;
  }

  /** Sends one command within the time limit (see {@link runCommand}). */
  run(...args: string[]): Promise<unknown> {
    return runCommand(this.client, args, this.timeoutMs);
  }

  private readonly shas = new Map<string, string>();

  /**
   * Runs a Lua script by its SHA1 (`EVALSHA`: the script is not sent with every call), loading it
   * with `EVAL` when Redis does not know it yet (a first call, or after a restart or `SCRIPT FLUSH`).
   */
  async script(script: string, keys: string[], args: string[]): Promise<unknown> {
    let sha = this.shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script).digest('hex');
      this.shas.set(script, sha);
    }
    try {
      return await this.run('EVALSHA', sha, String(keys.length), ...keys, ...args);
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (!(cause instanceof Error) || !cause.message.startsWith('NOSCRIPT')) throw error;
      return this.run('EVAL', script, String(keys.length), ...keys, ...args);
    }
  }
}
