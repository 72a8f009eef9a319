import { createHash } from 'node:crypto';
import { type KudosError, storeUnavailable } from '../base/errors.js';
import { checkPositive } from '../base/numbers.js';
import type { KudosRedisAdapter } from './adapter.js';
import { redisAdapter } from './client-kind.js';
import { checkServer, evictionRefusal, fullProblem, type ServerCheck } from './server-check.js';

/** Options shared by the Redis stores. */
export interface KudosRedisOptions {
  prefix?: string;
  /** Longest wait for one command, in milliseconds; default 2000. Then `store_unavailable`. */
  commandTimeoutMs?: number;
  /**
   * Use a Redis whose `maxmemory-policy` may evict keys (anything but `noeviction`). Default false:
   * the store's first call refuses it (`store_unusable`), as an evicted key can run a payment twice
   * or lose a kept one. Only for a Redis that holds nothing else, with an alert on its memory.
   */
  acceptEviction?: boolean;
  /**
   * How often the eviction policy is read again while the store runs, in milliseconds: the first
   * command after this long (and the first after a command failed: a reconnect, a failover to
   * another master) reads it on every master first. While a policy that may evict holds, the store
   * refuses every command (`store_unusable`), as at start. Default 60000: at most a minute apart.
   */
  policyCheckMs?: number;
}

/** Default time limit of one Redis command. */
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
/** Default time between two readings of the eviction policy while the store runs: a minute. */
const DEFAULT_POLICY_CHECK_MS = 60_000;
/** How often the cluster's masters, as the client knows them, are compared with the last reading's. */
const MASTERS_LOOK_MS = 1000;

/** Deletes KEYS[1] only while it holds ARGV[1]: nobody releases a claim that is no longer theirs. */
export const DELETE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** What every Redis store holds: the app's client (through its adapter), its key prefix and its command time limit. */
class RedisKeys {
  private readonly adapter: KudosRedisAdapter;
  readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly shas = new Map<string, string>();
  private readonly who: string;
  private readonly acceptEviction: boolean;
  /** The start-up check, once it passed (or while it runs); undefined until then, or after it failed. */
  private checked: Promise<void> | undefined;
  /** Whether the check passed: later commands go straight to Redis, but for the policy's re-reading. */
  private passed = false;
  private warned = false;
  private readonly policyCheckMs: number;
  /** When the policy was last read (epoch ms), and whether a failed command asks for it again now. */
  private policyReadAt = 0;
  private policyDue = false;
  /** The reading of the policy under way, which the commands meanwhile wait for. */
  private rereading: Promise<void> | undefined;
  /** While a policy that may evict holds: the refusal every command answers. */
  private refusal: KudosError | undefined;
  /** The cluster's masters at the last reading of the policy, and when they were last compared. */
  private mastersRead: string | undefined;
  private mastersLookedAt = 0;

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
    this.policyCheckMs = checkPositive(
      options?.policyCheckMs ?? DEFAULT_POLICY_CHECK_MS,
      `${who} option "policyCheckMs"`,
    );
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
    const masters = this.checked ? undefined : this.adapter.masters?.();
    this.checked ??= checkServer(this.serverCheck()).then(
      () => {
        this.passed = true;
        this.policyReadAt = Date.now();
        this.mastersRead = masters;
      },
      (error: unknown) => {
        this.checked = undefined;
        throw error;
      },
    );
    return this.checked;
  }

  /** What the server checks need of this store. */
  private serverCheck(): ServerCheck {
    const { eachMaster } = this.adapter;
    return {
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
    };
  }

  /**
   * {@link send}, after the start-up check (awaited until it passed), and after the eviction policy
   * was read again when that is due: refused (`store_unusable`) while a policy that may evict holds.
   */
  async run(args: string[], key: string | undefined): Promise<unknown> {
    await this.usable();
    return this.send(args, key);
  }

  /** The start-up check passed, and the policy was read again when due: else the refusal. */
  private async usable(): Promise<void> {
    if (!this.passed) await this.ready();
    else if (this.policyDue || this.mastersChanged() || Date.now() - this.policyReadAt >= this.policyCheckMs)
      await this.rereadPolicy();
    if (this.refusal) throw this.refusal;
  }

  /**
   * Whether the cluster's masters changed since the policy was read (a failover promoted a replica,
   * whose policy may be another): compared at most every second, from what the client knows.
   */
  private mastersChanged(): boolean {
    if (!this.adapter.masters) return false;
    const now = Date.now();
    if (now - this.mastersLookedAt < MASTERS_LOOK_MS) return false;
    this.mastersLookedAt = now;
    return this.adapter.masters() !== this.mastersRead;
  }

  /** See {@link RedisStore.health}. */
  async health(): Promise<void> {
    await this.usable();
    const full = await fullProblem(this.serverCheck());
    if (full) throw storeUnavailable(full);
  }

  /**
   * Reads the eviction policy of every master again (one reading at a time, which concurrent commands
   * share): an evicting one found (a `CONFIG SET`, a failover to a replica configured otherwise)
   * makes the store refuse every command until a reading finds `noeviction` again. A reading Redis
   * does not answer changes nothing and is made again at the next command.
   */
  private rereadPolicy(): Promise<void> {
    const masters = this.adapter.masters?.();
    this.rereading ??= evictionRefusal(this.serverCheck())
      .then(
        (refusal) => {
          this.refusal = refusal;
          this.policyDue = false;
          this.policyReadAt = Date.now();
          this.mastersRead = masters;
        },
        () => {
          this.policyDue = true;
        },
      )
      .finally(() => {
        this.rereading = undefined;
      });
    return this.rereading;
  }

  /**
   * Sends one command whose first key is `key` with a time limit. A failure or a timeout becomes
   * `KudosError` `store_unavailable` (503), so callers answer "try again later" instead of hanging.
   */
  private send(args: string[], key: string | undefined): Promise<unknown> {
    return this.limited(args[0] as string, () => this.adapter.send(args, key));
  }

  /** `work` (a command named `what`) with the time limit, its failure as `store_unavailable`. */
  private async limited<T>(what: string, work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([work(), timeout]);
    } catch (cause) {
      if (!isScriptMissing(cause)) {
        this.adapter.unavailable?.();
        // No answer (a reconnect, a failover to another master): the policy is read again first.
        if (!isRedisReply(cause)) this.policyDue = true;
      }
      throw storeUnavailable(
        `Redis is unavailable (${what}): ${cause instanceof Error ? cause.message : 'failed'}`,
        cause,
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

/** Whether Redis answered with an error of its own (OOM, WRONGTYPE...): it is there, and it answered. */
function isRedisReply(error: unknown): boolean {
  return error instanceof Error && /^[A-Z]{3,}\b/.test(error.message);
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

  /**
   * Rejects when the store cannot write now: a policy that may evict (`store_unusable`), or a full
   * `noeviction` Redis, which answers reads but refuses writes (`store_unavailable`, naming the
   * server and its memory). Reads `INFO memory` (one round trip, or one per master of a cluster).
   */
  health(): Promise<void> {
    return this.redis.health();
  }
}
