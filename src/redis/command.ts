import { createHash } from 'node:crypto';
import { KudosError } from '../base/errors.js';
import { checkPositive } from '../base/numbers.js';
import type { KudosRedisAdapter } from './adapter.js';
import { redisAdapter } from './client-kind.js';
import { checkServer } from './server-check.js';

/** Options shared by the Redis stores. */
export interface KudosRedisOptions {
  prefix?: string;
  /** Longest wait for one command, in milliseconds; default 2000. Then `redis_unavailable`. */
  commandTimeoutMs?: number;
  /**
   * Use a Redis whose `maxmemory-policy` may evict keys (anything but `noeviction`). Default false:
   * the store's first call refuses it (`store_unusable`), as an evicted key can run a payment twice
   * or lose a kept one. Only for a Redis that holds nothing else, with an alert on its memory.
   */
  acceptEviction?: boolean;
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
  private readonly who: string;
  private readonly acceptEviction: boolean;
  /** The start-up check, once it passed (or while it runs); undefined until then, or after it failed. */
  private checked: Promise<void> | undefined;
  /** Whether the check passed: every later command goes straight to Redis. */
  private passed = false;
  private warned = false;

  constructor(client: unknown, options: KudosRedisOptions, defaultPrefix: string, who: string) {
    this.adapter = redisAdapter(client, who);
    this.who = who;
    const prefix: unknown = options?.prefix ?? defaultPrefix;
    if (typeof prefix !== 'string') throw new TypeError(`${who} option "prefix" must be a string`);
    this.prefix = prefix;
    this.timeoutMs = checkPositive(
      options?.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      `${who} option "commandTimeoutMs"`,
    );
    const accept: unknown = options?.acceptEviction ?? false;
    if (typeof accept !== 'boolean')
      throw new TypeError(`${who} option "acceptEviction" must be true or false`);
    this.acceptEviction = accept;
  }

  key(name: string): string {
    return this.prefix + name;
  }

  /**
   * Resolves once the server passed the store's start-up check (see server-check.ts): made at the
   * first call, once; a check that failed is made again at the next call (Redis may have been down,
   * or its policy changed since).
   */
  ready(): Promise<void> {
    const { eachMaster } = this.adapter;
    this.checked ??= checkServer({
      who: this.who,
      server: this.adapter.server,
      eachMaster: eachMaster && ((args) => this.limited(args[0] as string, () => eachMaster(args))),
      send: (args, key) => this.send(args, key),
      probeKey: this.key('{kudos-check}'),
      acceptEviction: this.acceptEviction,
      warn: (message) => {
        if (this.warned) return;
        this.warned = true;
        process.emitWarning(message, { type: 'KudosRedisWarning' });
      },
    }).then(
      () => {
        this.passed = true;
      },
      (error: unknown) => {
        this.checked = undefined;
        throw error;
      },
    );
    return this.checked;
  }

  /** {@link send}, after the start-up check (awaited until it passed; then no longer on the way). */
  async run(args: string[], key: string | undefined): Promise<unknown> {
    if (!this.passed) await this.ready();
    return this.send(args, key);
  }

  /**
   * Sends one command whose first key is `key` with a time limit. A failure or a timeout becomes
   * `KudosError` `redis_unavailable` (503), so callers answer "try again later" instead of hanging.
   */
  private send(args: string[], key: string | undefined): Promise<unknown> {
    return this.limited(args[0] as string, () => this.adapter.send(args, key));
  }

  /** `work` (a command named `what`) with the time limit, its failure as `redis_unavailable`. */
  private async limited<T>(what: string, work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([work(), timeout]);
    } catch (cause) {
      if (!isScriptMissing(cause)) this.adapter.unavailable?.();
      throw new KudosError('redis_unavailable', {
        message: `Redis is unavailable (${what}): ${cause instanceof Error ? cause.message : 'failed'}`,
        cause,
      });
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

/** What every Redis store shares: its keys and commands, and the start-up check an app may await. */
export abstract class RedisStore {
  protected readonly redis: RedisKeys;

  constructor(client: unknown, options: KudosRedisOptions, defaultPrefix: string, who: string) {
    this.redis = new RedisKeys(client, options ?? {}, defaultPrefix, who);
  }

  /**
   * Resolves once the server passed the store's checks: its `maxmemory-policy` on every master
   * (`noeviction`, unless `acceptEviction`) and one write. The first call of the store makes them
   * anyway; await this at start to stop there, with the error naming the server and the cause
   * (`store_unusable`), rather than at the first payment.
   */
  ready(): Promise<void> {
    return this.redis.ready();
  }
}
