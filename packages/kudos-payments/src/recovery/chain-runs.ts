// The runs of `reconcileChain()` of one receiver: one at a time for the same wallets (a call while
// one runs in this process joins it; one while another instance sharing the store runs it returns at
// once), each address read from where the last run left it (chain-checkpoint.ts), each transfer
// decided once whichever spelling listed it, and what it recovered and whether it read its window
// whole kept for `status()`.
import { createHash, randomBytes } from 'node:crypto';
import { KUDOS_CHAIN, type KudosChainScanMessage, traced, traceURL } from 'kudos-core';
import { LEGACY_PREFIX, MAIN_PREFIX, spellAddress, transferFilter } from 'kudos-core/chain';
import { blockTimeOf, chainRecord } from '../core/chain-tx.js';
import type { KudosClaimContext } from '../core/dedupe.js';
import type { PipelineSettings } from '../core/pipeline.js';
import { keepLease } from '../core/process-once.js';
import { type ChainCheckpoint, ChainCheckpoints } from './chain-checkpoint.js';
import { type ChainLookup, lookUpTx, type SearchEntry, searchPage } from './chain-reads.js';
import { type EntryVerdict, scanTransfers } from './chain-scan.js';
import type { PayerIds } from './payer-ids.js';
import { emptyResult, type FeedExtras, feed, type KudosReconcileResult } from './reconcile.js';

/** What a chain reconcile reads, checked once: `kudosPayments()` makes it from its own settings. */
export interface ChainPlan extends ChainLookup {
  /** The shop's accounts (checkWallets()). */
  wallets: ReadonlySet<string>;
  /**
   * Whether a transaction is decided alike whoever paid it (`kudosPayments()`: its memo names no order,
   * or one made for no user): then a payer the service cannot name now is decided unnamed, not kept.
   */
  payerOptional?: (record: Record<string, unknown>) => Promise<boolean>;
}

/** What `status()` says of the chain reconciles of this process. */
export interface ChainHealth {
  recoveredFromChain: number;
  chainScanOk: boolean;
  chainScanError: string | null;
  chainUndecided: number;
}

/** One run's own state: its result, and the transfers it decided (once, whichever spelling listed them). */
interface Run {
  plan: ChainPlan;
  result: KudosReconcileResult & { requests: number };
  decided: Set<string>;
  recovered: number;
  /** Transfers this run could not decide (every address), each read again by the next run. */
  undecided: number;
}

export class ChainReconciler {
  private readonly running = new Map<string, Promise<KudosReconcileResult>>();
  private readonly checkpoints: ChainCheckpoints;
  private recovered = 0;
  private scanError: string | null = null;
  private undecided = 0;

  constructor(
    private readonly settings: PipelineSettings,
    private readonly payers: PayerIds,
  ) {
    this.checkpoints = new ChainCheckpoints(settings.store, settings.dedupeTtlMs);
  }

  health(): ChainHealth {
    return {
      recoveredFromChain: this.recovered,
      chainScanOk: this.scanError === null,
      chainScanError: this.scanError,
      chainUndecided: this.undecided,
    };
  }

  /**
   * Reads the chain for `plan` from `since` (`explicit`: that window whole, remembering nothing; else
   * from where the last run left each address). A call while the same run is under way joins it.
   */
  run(plan: ChainPlan, since: number, explicit: boolean): Promise<KudosReconcileResult> {
    const key = runKey(plan, explicit ? since : undefined);
    const current = this.running.get(key);
    if (current) return current.then((result) => ({ ...result, joined: true }));
    const run = this.leased(plan, () => this.read(plan, since, explicit)).finally(() =>
      this.running.delete(key),
    );
    this.running.set(key, run);
    return run;
  }

  /**
   * The run under a lease in the store, one per wallets whatever the window: another run holding it
   * (another instance, or this one's with another `since`) means this call reads nothing.
   */
  private async leased(
    plan: ChainPlan,
    read: () => Promise<KudosReconcileResult>,
  ): Promise<KudosReconcileResult> {
    const { store, leaseMs, report } = this.settings;
    const lease = `reconcile-chain:${runKey(plan, undefined)}`;
    const holder: KudosClaimContext = { token: randomBytes(16).toString('base64url'), trusted: true };
    if ((await store.claim(lease, leaseMs, holder)) !== 'claimed') {
      return traced(
        'chain',
        () => message(plan),
        async (m) => {
          if (m) m.outcome = 'busy';
          return { ...emptyResult(), requests: 0, busy: true };
        },
      );
    }
    const stop = keepLease(store, lease, leaseMs, holder, (error) => report(error, undefined));
    try {
      return await read();
    } finally {
      stop();
      await store.release(lease, holder).catch(() => undefined);
    }
  }

  private read(plan: ChainPlan, since: number, explicit: boolean): Promise<KudosReconcileResult> {
    return traced(
      'chain',
      () => message(plan),
      async (m) => {
        const run: Run = {
          plan,
          result: { ...emptyResult(), requests: 0 },
          decided: new Set(),
          recovered: 0,
          undecided: 0,
        };
        try {
          for (const account of plan.wallets) {
            // The chain's events spell an address as it was paid: today the main prefix, in older blocks the legacy one.
            for (const prefix of [MAIN_PREFIX, LEGACY_PREFIX] as const) {
              await this.readAddress(run, spellAddress(account, prefix), since, explicit);
            }
          }
        } catch (error) {
          this.scanError = `${codeWord(error)}${error instanceof Error ? error.message : 'failed'}`;
          throw error;
        } finally {
          this.recovered += run.recovered;
          if (m) {
            m.requests = run.result.requests;
            m.recovered = run.recovered;
          }
        }
        this.scanError = run.result.incompleteReason ?? null;
        this.undecided = run.undecided;
        if (m) {
          m.outcome = run.result.incomplete ? 'incomplete' : 'complete';
          if (run.result.incompleteReason) m.reason = run.result.incompleteReason;
        }
        return run.result;
      },
    );
  }

  /** One address: what an earlier run could not decide, then the search from where the last run left. */
  private async readAddress(run: Run, address: string, since: number, explicit: boolean): Promise<void> {
    const { lcd, timeoutMs } = run.plan;
    const name = `reconcile-chain:${address}@${lcd}`;
    let checkpoint: ChainCheckpoint | undefined;
    if (!explicit) {
      checkpoint = (await this.checkpoints.read(name)) ?? { done: null, retry: [] };
      checkpoint = { ...checkpoint, retry: await this.readAgain(run, checkpoint.retry) };
    }
    const scan = await scanTransfers({
      read: (page) => searchPage(lcd, address, page, timeoutMs),
      since,
      checkpoint,
      decide: (entry) => this.decide(run, entry),
      save: (saved) => this.checkpoints.save(name, saved),
    });
    run.result.requests += scan.requests;
    const where = `the chain's search for ${transferFilter(address)} at ${traceURL(lcd + KUDOS_CHAIN.txsByEvent)}`;
    if (scan.stop) incomplete(run.result, `${scan.stop.reason}: ${where}: ${scan.stop.detail}`);
    if (scan.undecided.count > 0) {
      run.undecided += scan.undecided.count;
      incomplete(
        run.result,
        `undecided: ${where}: ${scan.undecided.count} transaction(s) could not be decided yet (${scan.undecided.first}…: a payer's lookup, the confirmation or a store failed); the next run reads each again`,
      );
    }
    if (scan.untimed.length > 0) {
      incomplete(
        run.result,
        `no_block_time: ${where}: ${scan.untimed.length} transaction(s) have no block time, even looked up by hash (${scan.untimed[0]}…)`,
      );
    }
  }

  /** The transactions an earlier run could not decide, looked up by hash and decided now; those that fail again are kept. */
  private async readAgain(run: Run, hashes: readonly string[]): Promise<string[]> {
    const still: string[] = [];
    for (const hash of hashes) {
      const found = await lookUpTx(run.plan, hash);
      run.result.requests++;
      if (found === undefined) continue; // not on the chain (another chain's checkpoint): nothing to decide
      const entry = {
        found: found as SearchEntry['found'],
        hash,
        height: undefined,
        time: blockTimeOf(found),
      };
      if ((await this.decide(run, entry)) === 'retry') still.push(hash);
    }
    return still;
  }

  /** One transfer: decided as a notification would be, once in this run; 'retry' when it could not be now. */
  private async decide(run: Run, entry: SearchEntry): Promise<EntryVerdict> {
    const { plan, result } = run;
    const hash = entry.hash;
    if (hash === undefined || run.decided.has(hash)) return 'ok';
    let found: unknown = entry.found;
    if (entry.time === undefined) {
      // An entry without its block's time (a faulty node): the lookup by hash may have it.
      found = await lookUpTx(plan, hash);
      result.requests++;
      if (blockTimeOf(found) === undefined) return 'untimed';
    }
    const record = chainRecord(found, plan.denom);
    if (record === undefined) return 'ok'; // failed, not in a block, or none of the denomination: nothing to decide
    run.decided.add(hash);
    const outcome = await feed(this.settings, record, result, chainExtras(this.payers, plan, record, found));
    if (outcome === 'processed') run.recovered++;
    return outcome === 'failed' ? 'retry' : 'ok';
  }
}

/**
 * What a transaction read from the chain is fed with: the chain's answer, for the confirmer of the
 * same node (no second lookup), and its payer named once the key is claimed (a duplicate costs no
 * lookup; with `payerOptional`, a lookup that fails leaves it unnamed where whoever paid makes no
 * difference). The chain reconcile and the return page's lookup both feed through it.
 */
export function chainExtras(
  payers: PayerIds,
  read: ChainLookup & Pick<ChainPlan, 'payerOptional'>,
  record: Record<string, unknown>,
  found: unknown,
): FeedExtras {
  const { baseURL, lcd, timeoutMs, payerOptional } = read;
  const from = record.from as string;
  const name = (url: string) =>
    payers.idOf(url, from, timeoutMs).catch(async (error: unknown) => {
      if (payerOptional && (await payerOptional(record))) return null;
      throw error;
    });
  return {
    chainAnswer: { lcd, body: found },
    ...(baseURL === undefined ? {} : { namePayer: () => name(baseURL) }),
  };
}

/** A run's identity: the chain node, the accounts, the denomination, and an explicit `since`. */
function runKey(plan: ChainPlan, since: number | undefined): string {
  const what = [plan.lcd, plan.denom, [...plan.wallets].sort().join(','), since ?? ''].join('|');
  return createHash('sha256').update(what).digest('base64url').slice(0, 32);
}

function message(plan: ChainPlan): KudosChainScanMessage {
  return { operation: 'chain', url: traceURL(plan.lcd) };
}

/** Marks a result incomplete, keeping the first reason. */
function incomplete(result: KudosReconcileResult, reason: string): void {
  result.incomplete = true;
  result.incompleteReason ??= reason;
}

function codeWord(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `${code}: ` : '';
}
