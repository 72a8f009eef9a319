import { createHash } from 'node:crypto';
import { KudosError } from '../base/errors.js';
import { checkPositive } from '../base/numbers.js';
import type { KudosRedisAdapter } from './adapter.js';
import { redisAdapter } from './client-kind.js';

/** Options shared by the Redis stores. */
export interface KudosRedisOptions {
  prefix?: string;
  /** Longest wait for one command, in milliseconds; default 2000. Then `redis_unavailable`. */
  commandTimeoutMs?: number;
}

/** Default time limit of one Redis command. */
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

/** Deletes KEYS[1] only while it holds ARGV[1]: nobody releases a claim that is no longer theirs. */
export const DELETE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** What every Redis store holds: the app's client (through its adapter), its key prefix and its command time limit. */
export class RedisKeys {
  private readonly adapter: KudosRedisAdapter;
  readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly shas = new Map<string, string>();

  constructor(client: unknown, options: KudosRedisOptions, defaultPrefix: string, who: string) {
    this.adapter = redisAdapter(client, who);
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

  /**
   * Sends one command whose first key is `key` with a time limit. A failure or a timeout becomes
   * `KudosError` `redis_unavailable` (503), so callers answer "try again later" instead of hanging.
   */
  async run(args: string[], key: string | undefined): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([this.adapter.send(args, key), timeout]);
    } catch (cause) {
      if (!isScriptMissing(cause)) this.adapter.unavailable?.();
      throw new KudosError(
        `Redis is unavailable (${args[0]}): ${cause instanceof Error ? cause.message : 'failed'}`,
        { code: 'redis_unavailable', status: 503, cause },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs a Lua script by its SHA1 (`EVALSHA`: the script is not sent with every call), loading it
   * with `EVAL` when the server does not know it yet: a first call, a restart, `SCRIPT FLUSH`, or,
   * on a cluster, a node (or a replica just promoted) that never ran it. Both go to the node of
   * `keys[0]`, so each node learns each script on its first use.
   */
  async script(script: string, keys: string[], args: string[]): Promise<unknown> {
    let sha = this.shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script).digest('hex');
      this.shas.set(script, sha);
    }
    const count = String(keys.length);
    try {
      return await this.run(['EVALSHA', sha, count, ...keys, ...args], keys[0]);
    } catch (error) {
      if (!isScriptMissing((error as { cause?: unknown }).cause)) throw error;
      return this.run(['EVAL', script, count, ...keys, ...args], keys[0]);
    }
  }
}

/** Whether a command failed only because the server does not know the script (NOSCRIPT). */
function isScriptMissing(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
