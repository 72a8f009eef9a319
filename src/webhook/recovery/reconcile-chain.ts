// The way back that needs only the chain: every transfer to the shop's own wallet, as the chain's
// search by event lists it, decided as a notification would be. The service's own history never lists
// a payment with an agent fee under the shop (its record names the receivers as a list), and the
// service removed its history and its chain proxy in 2026 (docs/kudos-service.md#what-the-service-removed-in-2026).

import { KudosApiError } from '../../base/errors.js';
import { isRecord } from '../../base/guards.js';
import { checkPositive } from '../../base/numbers.js';
import { hasCredentials, withoutTrailingSlashes } from '../../base/url-path.js';
import { LEGACY_PREFIX, MAIN_PREFIX, spellAddress } from '../../protocol/address.js';
import { apiPath, chainRestURL, KUDOS_CHAIN } from '../../protocol/endpoints.js';
import { endpointGone, isDocumentedNotFound } from '../../protocol/gone.js';
import { answerError, type HttpCall, isOk, jsonOf, request } from '../../protocol/http-client.js';
import { DEFAULT_TIMEOUT_MS } from '../../protocol/limits.js';
import { chainRecord } from '../core/chain-tx.js';
import { checkDenom, checkWallets } from '../core/confirm.js';
import type { PipelineSettings } from '../core/pipeline.js';
import type { PayerIds } from './payer-ids.js';
import { emptyResult, feed, type KudosReconcileResult } from './reconcile.js';

/** `reconcileChain()` of a receiver: the chain's transfers to `wallet` since a time. */
export interface KudosReconcileChain {
  /**
   * The shop's own wallet address(es), in either spelling (`kudos1…` or `cosmos1…`): the transfers
   * to these accounts are read, under both spellings.
   */
  wallet: string | readonly string[];
  /**
   * `{base_url}` of the Kudos API: the chain's REST (LCD) interface is `{baseURL}/cosmos/lcd` unless
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

/** What to do when no chain answers at the LCD's URL. */
const GONE_HINT =
  'Set "restURL" to a chain node\'s REST (LCD) interface (the service\'s {baseURL}/cosmos/lcd proxy is gone since 2026-05-21).';

/** Transactions asked for in one page of the chain's search (the LCD's own default most). */
const PAGE_LIMIT = 100;

/** Most pages one reconcile reads for one address. */
const MAX_PAGES = 1_000;

/** Largest page read: a page of 100 transactions is a few hundred kB. */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;

/** One page of the chain's search: its transactions (each as a `GetTxResponse`) and how many there are in all. */
interface SearchPage {
  found: unknown[];
  total: number | undefined;
}

/** What one reconcile reads with, for every address. */
interface ChainRead {
  lcd: string;
  /** The Kudos API, to name payers by; undefined with only `restURL`. */
  baseURL: string | undefined;
  payers: PayerIds;
  since: number;
  timeoutMs: number;
  denom: string;
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

/** A page of the search answer: `tx_responses` paired with `txs`, as `GetTxResponse`s. */
function pageOf(body: unknown): SearchPage {
  if (!isRecord(body) || !Array.isArray(body.tx_responses)) {
    throw new KudosApiError('invalid_response', {
      message: "the chain's transaction search answered something that is not a list of transactions",
      httpStatus: 200,
    });
  }
  const txs = Array.isArray(body.txs) ? body.txs : [];
  const found = body.tx_responses.map((response, i) => ({
    tx: txs[i] ?? (isRecord(response) ? response.tx : undefined),
    tx_response: response,
  }));
  const total = isRecord(body.pagination) ? Number(body.pagination.total) : Number.NaN;
  return { found, total: Number.isSafeInteger(total) && total > 0 ? total : undefined };
}

/** `GET {lcd}/cosmos/tx/v1beta1/txs?events=transfer.recipient='ADDRESS'`, newest first, from `offset`. */
async function searchPage(
  lcd: string,
  address: string,
  offset: number,
  timeoutMs: number,
): Promise<SearchPage> {
  const query = new URLSearchParams({
    events: `transfer.recipient='${address}'`,
    order_by: 'ORDER_BY_DESC',
    'pagination.limit': String(PAGE_LIMIT),
    'pagination.offset': String(offset),
  });
  const call: HttpCall = {
    service: 'api',
    what: `GET ${KUDOS_CHAIN.txsByEvent}`,
    url: `${lcd}${KUDOS_CHAIN.txsByEvent}?${query}`,
    headers: { accept: 'application/json' },
    timeoutMs,
    maxBytes: MAX_PAGE_BYTES,
  };
  const answer = await request(call);
  if (answer.status === 404) {
    if (isDocumentedNotFound(answer, 'chain')) return { found: [], total: 0 };
    throw endpointGone(call.url, answer, "the chain's transaction search", GONE_HINT);
  }
  if (!isOk(answer.status)) throw answerError(answer, call);
  return pageOf(jsonOf(answer, call));
}

/** The block time of a search entry, epoch ms (0 when it has none: such an entry ends no page). */
function blockTime(found: unknown): number {
  const response = isRecord(found) && isRecord(found.tx_response) ? found.tx_response : undefined;
  const time = typeof response?.timestamp === 'string' ? Date.parse(response.timestamp) : Number.NaN;
  return Number.isFinite(time) ? time : 0;
}

/** Every transfer to `address` in blocks since `since`, newest first, fed once each (by hash). */
async function readTransfers(
  settings: PipelineSettings,
  read: ChainRead & { address: string },
  seen: Set<string>,
  result: KudosReconcileResult,
): Promise<void> {
  let offset = 0;
  for (let count = 0; count < MAX_PAGES; count++) {
    const page = await searchPage(read.lcd, read.address, offset, read.timeoutMs);
    let older = false;
    for (const found of page.found) {
      // Newest first: a block before `since` ends the search.
      if (blockTime(found) < read.since) {
        older = true;
        break;
      }
      const record = chainRecord(found, read.denom);
      if (record === undefined || seen.has(record.txHash as string)) continue;
      seen.add(record.txHash as string);
      if (read.baseURL !== undefined) {
        record.fromId = await read.payers.idOf(read.baseURL, record.from as string, read.timeoutMs);
      }
      await feed(settings, record, result);
    }
    offset += page.found.length;
    const last = page.found.length < PAGE_LIMIT || (page.total !== undefined && offset >= page.total);
    if (older || last || page.found.length === 0) return;
  }
}

/** Where one transaction is looked up on the chain, and how it is read. */
export interface ChainLookup {
  /** The chain's REST (LCD) interface. */
  lcd: string;
  /** The Kudos API, to name the payer by; undefined: the payer stays unnamed (`fromId` null). */
  baseURL: string | undefined;
  denom: string;
  timeoutMs: number;
}

/** `GET {lcd}/cosmos/tx/v1beta1/txs/{hash}`: the transaction, undefined when the chain does not know it (yet). */
async function lookUpTx(read: ChainLookup, hash: string): Promise<unknown> {
  const call: HttpCall = {
    service: 'api',
    what: `GET ${KUDOS_CHAIN.tx}`,
    url: `${read.lcd}${apiPath(KUDOS_CHAIN.tx, { hash })}`,
    headers: { accept: 'application/json' },
    timeoutMs: read.timeoutMs,
    maxBytes: MAX_PAGE_BYTES,
  };
  const answer = await request(call);
  if (answer.status === 404) {
    if (isDocumentedNotFound(answer, 'chain')) return undefined;
    throw endpointGone(call.url, answer, "the chain's transaction lookup", GONE_HINT);
  }
  if (!isOk(answer.status)) throw answerError(answer, call);
  return jsonOf(answer, call);
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
  const record = chainRecord(await lookUpTx(read, hash.toUpperCase()), read.denom);
  if (record === undefined || !concerns(record)) return result;
  if (read.baseURL !== undefined)
    record.fromId = await payers.idOf(read.baseURL, record.from as string, read.timeoutMs);
  await feed(settings, record, result);
  return result;
}

/**
 * Reads the chain's transfers to the shop's `wallet` accounts (both spellings of each) in blocks
 * since a time, and feeds each through the same pipeline and dedupe keys as a delivery: the confirmer
 * checks it on the chain, the handler decides it, and a transaction already processed (by a
 * notification, the return page, an earlier reconcile) is a duplicate. No token and no service
 * history: the chain alone. Rejects with `KudosApiError` when the chain cannot be asked
 * (`endpoint_gone` when no chain answers at that URL).
 */
export async function reconcileChain(
  settings: PipelineSettings,
  args: KudosReconcileChain,
  payers: PayerIds,
): Promise<KudosReconcileResult> {
  if (!isRecord(args))
    throw new TypeError('reconcileChain() requires its arguments: { wallet, restURL or baseURL, since? }');
  return readChain(settings, chainPlan(args, 'reconcileChain()'), args.since, payers);
}

/** What a chain reconcile reads, checked once: `kudosPayments()` makes it from its own settings. */
export interface ChainPlan extends ChainLookup {
  /** The shop's accounts (checkWallets()). */
  wallets: ReadonlySet<string>;
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
 * Reads the chain by a checked plan, from `since` (default: the dedupe TTL back; older keys are
 * forgotten, so older transfers would be processed again).
 */
export async function readChain(
  settings: PipelineSettings,
  plan: ChainPlan,
  sinceArg: unknown,
  payers: PayerIds,
): Promise<KudosReconcileResult> {
  const since = sinceArg ?? settings.now() - settings.dedupeTtlMs;
  if (typeof since !== 'number' || !Number.isFinite(since)) {
    throw new TypeError('reconcileChain() option "since" must be a time in epoch milliseconds');
  }
  const read: ChainRead = { ...plan, payers, since };
  const result = emptyResult();
  const seen = new Set<string>();
  for (const account of plan.wallets) {
    // The chain's events spell an address as it was paid: today the main prefix, in older blocks the legacy one.
    for (const prefix of [MAIN_PREFIX, LEGACY_PREFIX] as const) {
      await readTransfers(settings, { ...read, address: spellAddress(account, prefix) }, seen, result);
    }
  }
  return result;
}
