// The way back that needs only the chain: every transfer to the shop's own wallet, as the chain's
// search by event lists it, decided as a notification would be. The service's own history never lists
// a payment with an agent fee under the shop (its record names the receivers as a list), and the
// service removed its history and its chain proxy in 2026 (docs/kudos-service.md#what-the-service-removed-in-2026).

import {
  chainRestURL,
  checkPositive,
  DEFAULT_TIMEOUT_MS,
  hasCredentials,
  isRecord,
  withoutTrailingSlashes,
} from 'kudos-core';
import { chainRecord } from '../core/chain-tx.js';
import { checkDenom, checkWallets } from '../core/confirm.js';
import type { PipelineSettings } from '../core/pipeline.js';
import { type ChainLookup, lookUpTx } from './chain-reads.js';
import { type ChainPlan, type ChainReconciler, chainExtras } from './chain-runs.js';
import type { PayerIds } from './payer-ids.js';
import { emptyResult, feed, type KudosReconcileResult } from './reconcile.js';

export type { ChainLookup } from './chain-reads.js';
export type { ChainPlan } from './chain-runs.js';

/** `reconcileChain()` of a receiver: the chain's transfers to `wallet` since a time. */
export interface KudosReconcileChain {
  /**
   * The shop's own wallet address(es), in either spelling (`kudos1…` or `cosmos1…`): the transfers
   * to these accounts are read, under both spellings.
   */
  wallet: string | readonly string[];
  /**
   * `{baseURL}` of the Kudos API: the chain's REST (LCD) interface is `{baseURL}/cosmos/lcd` unless
   * `restURL` is given; and each payer's wallet is named as its user by the service's public address
   * lookup (`/users/addr/{address}/min`), so that an order made for a user can be paid by it. Without
   * it a payment's `fromId` is null. Give this, `restURL`, or both.
   */
  baseURL?: string;
  /** The chain's REST (LCD) interface itself (a chain node): the money path then needs no proxy of the service. */
  restURL?: string;
  /**
   * Epoch milliseconds: transfers in blocks from this time on. Default: the dedupe TTL back (older
   * keys are forgotten, so older transfers would be processed again: never reach further back).
   */
  since?: number;
  /** Time limit of each page's request in milliseconds; default 10000. */
  timeoutMs?: number;
  /** The denomination that counts as money; default `nanokudos`. */
  denom?: string;
}

/** The chain's REST interface of the arguments, checked: a `TypeError` naming `reconcileChain()`. */
function lcdOf(args: KudosReconcileChain): string {
  const url = chainRestURL(args.restURL, args.baseURL);
  if (typeof url !== 'string' || !URL.canParse(url) || hasCredentials(url)) {
    throw new TypeError(
      'reconcileChain() requires "restURL" (the chain\'s REST interface) or "baseURL" (the Kudos API), an absolute URL without credentials',
    );
  }
  return withoutTrailingSlashes(url);
}

function checkBaseURL(value: unknown): string {
  if (typeof value !== 'string' || !URL.canParse(value) || hasCredentials(value)) {
    throw new TypeError('reconcileChain() option "baseURL" must be an absolute URL without credentials');
  }
  return withoutTrailingSlashes(value);
}

/**
 * One transaction by its hash, from the chain alone (the return page's lookup): fed through the
 * pipeline like a notification when it succeeded in a block and `concerns` says it is the shop's (its
 * record pays one of the shop's wallets); anything else touches no store. Rejects with `KudosApiError`
 * when the chain cannot be asked.
 */
export async function reconcileChainTx(
  settings: PipelineSettings,
  read: ChainLookup,
  hash: string,
  payers: PayerIds,
  concerns: (record: unknown) => boolean,
): Promise<KudosReconcileResult> {
  const result = emptyResult();
  const found = await lookUpTx(read, hash.toUpperCase());
  const record = chainRecord(found, read.denom);
  if (record === undefined || !concerns(record)) return result;
  // The return page's lookup, as it was: a payer the service cannot name fails this lookup.
  await feed(
    settings,
    record,
    result,
    chainExtras(payers, { ...read, payerOptional: undefined }, record, found),
  );
  return result;
}

/**
 * Reads the chain's transfers to the shop's `wallet` accounts (both spellings of each) in blocks
 * since a time, and feeds each through the same pipeline and dedupe keys as a delivery: the confirmer
 * checks it on the chain, the handler decides it, and a transaction already processed (by a
 * notification, the return page, an earlier reconcile) is a duplicate. No token and no service
 * history: the chain alone. Each run reads what is new since the last one (chain-runs.ts). Rejects
 * with `KudosApiError` when the chain cannot be asked (`endpoint_gone` when no chain answers at that URL).
 */
export async function reconcileChain(
  settings: PipelineSettings,
  args: KudosReconcileChain,
  runs: ChainReconciler,
): Promise<KudosReconcileResult> {
  if (!isRecord(args))
    throw new TypeError('reconcileChain() requires its arguments: { wallet, restURL or baseURL, since? }');
  return readChain(settings, chainPlan(args, 'reconcileChain()'), args.since, runs);
}

/** The arguments of `reconcileChain()` but `since`, checked: a `TypeError` naming `where`. */
function chainPlan(args: KudosReconcileChain, where: string): ChainPlan {
  return {
    lcd: lcdOf(args),
    wallets: checkWallets(args.wallet, where),
    timeoutMs: checkPositive(args.timeoutMs ?? DEFAULT_TIMEOUT_MS, `${where} option "timeoutMs"`),
    denom: checkDenom(args.denom, where),
    baseURL: args.baseURL === undefined ? undefined : checkBaseURL(args.baseURL),
  };
}

/**
 * Reads the chain by a checked plan: from where the last run left (within the dedupe TTL back: older
 * keys are forgotten, so older transfers would be processed again), or an explicit `since`'s window whole.
 */
export async function readChain(
  settings: PipelineSettings,
  plan: ChainPlan,
  sinceArg: unknown,
  runs: ChainReconciler,
): Promise<KudosReconcileResult> {
  const since = sinceArg ?? settings.now() - settings.dedupeTtlMs;
  if (typeof since !== 'number' || !Number.isFinite(since)) {
    throw new TypeError('reconcileChain() option "since" must be a time in epoch milliseconds');
  }
  return runs.run(plan, since, sinceArg !== undefined);
}
