import {
  answerError,
  apiPath,
  DEFAULT_TIMEOUT_MS,
  endpointGone,
  type HttpCall,
  isDocumentedNotFound,
  isOk,
  isRecord,
  jsonOf,
  KUDOS_API,
  KudosApiError,
  request,
  withoutTrailingSlashes,
} from 'kudos-core';
import { KudosNotificationError } from '../core/errors.js';
import { observeNotification } from '../core/observe.js';
import { type PipelineSettings, runNotification } from '../core/pipeline.js';
import { asHandlerError } from '../core/process-once.js';

/** `reconcile()` of one transaction: `GET {baseURL}/tx/id/{txHash}` (no token). */
export interface KudosReconcileTransaction {
  /** `{baseURL}` of the Kudos API. */
  baseURL: string;
  txHash: string;
  /** Time limit of each lookup in milliseconds; default 10000. */
  timeoutMs?: number;
}

/**
 * `reconcile()` of a user's transactions since a time: `GET {baseURL}/tx/history/user/{user}`,
 * page by page (10 a page, newest first), with that user's access token holding `read`.
 */
export interface KudosReconcileHistory {
  baseURL: string;
  /** The Kudos user ID whose transactions (received and sent) are read. */
  user: string;
  accessToken: string;
  /**
   * Epoch milliseconds: transactions from this time on. Default: the dedupe TTL back (older keys are
   * forgotten, so older records would be processed again: never reach further back than the TTL).
   */
  since?: number;
  timeoutMs?: number;
}

/** What `reconcile()` needs of the app's API client: `createKudosClient()`'s answer has both. */
export interface KudosReconcileClient {
  json(userId: string, path: string): Promise<unknown>;
  tokenSet(userId: string): Promise<{ user: string }>;
}

/**
 * `reconcile()` of a user's transactions through the app's API client (`createKudosClient()`): the
 * same pages as {@link KudosReconcileHistory}, with the client's token store, refresh, time limit and
 * size cap, so an access token that expired is refreshed instead of failing the reconcile.
 */
export interface KudosReconcileWithClient {
  client: KudosReconcileClient;
  /** The app's key of the user in the client's token store; the Kudos user is that token set's `user`. */
  userId: string;
  /** As {@link KudosReconcileHistory.since}. */
  since?: number;
}

/** What `reconcile()` is asked: one transaction, or a user's history (with a token, or through the client). */
export type KudosReconcileArgs = KudosReconcileTransaction | KudosReconcileHistory | KudosReconcileWithClient;

/** What `reconcile()` did. */
export interface KudosReconcileResult {
  /** Records the service answered. */
  seen: number;
  /** Processed now: no delivery had brought them. */
  processed: number;
  /** Already processed (a delivery came first, or an earlier reconcile). */
  duplicates: number;
  /**
   * Could not be processed now (the handler or the confirmation failed, or a delivery holds the key);
   * kept for `redrive()` once confirmed.
   */
  failed: number;
  /**
   * Not processed: older than the dedupe TTL (or with no `ts`), so its key may be forgotten and a
   * payment handled long ago would run again.
   */
  stale: number;
  /**
   * True when the history could not be read whole: a page held 10 records of one `ts` (the service
   * pages by time, 10 at a time), so more records of that time may exist that no page shows.
   */
  incomplete: boolean;
  /** With `incomplete`: the `ts` (epoch milliseconds) that paging could not get past. */
  incompleteAt?: number;
  /**
   * With `incomplete`: why, for a log (`reconcileChain()`: a stable word, a colon, and what the node
   * answered, naming its URL: `repeated_page`, `total_contradicted`, `page_limit`, `no_block_time`,
   * `undecided` (transfers that could not be decided yet: the next run reads each again); `reconcile()`:
   * `page_of_one_time`).
   */
  incompleteReason?: string;
  /**
   * `reconcileChain()` only: requests made to the chain's search (and lookups by hash of what an earlier
   * run could not decide). The confirmation of what it found needs none: it reads what the search answered.
   */
  requests?: number;
  /** `reconcileChain()` only: this call joined a run of the same reconcile already under way in this process, and answers its result. */
  joined?: true;
  /**
   * `reconcileChain()` only: another instance sharing the store is running the same reconcile right
   * now: this call read nothing and returned at once (that run reads the window).
   */
  busy?: true;
}

/** Most history pages one reconcile reads (10 records each). */
const MAX_PAGES = 10_000;

/** Largest answer read from a lookup (a page of 10 records is a few kB). */
const MAX_LOOKUP_BYTES = 1024 * 1024;

/** What to tell the app when a route of the service's earlier generation is gone. */
const GONE_HINT =
  'Reconcile from the chain instead: reconcileChain(), with "restURL" at a chain node (the service removed /tx/** on 2026-08-21).';

/**
 * GETs a lookup of the service through the HTTP client: its JSON, undefined for the service's own
 * "not found" (`notFound: 'service'`); `endpoint_gone` for any other 404 (a removed route's HTML
 * page; a history never answers 404), `KudosApiError` for anything else.
 */
async function getJson(
  url: string,
  what: string,
  timeoutMs: number,
  notFound: 'service' | 'never',
  accessToken?: string,
): Promise<unknown> {
  const call: HttpCall = {
    service: 'api',
    what,
    url,
    headers: { accept: 'application/json' },
    accessToken,
    timeoutMs,
    maxBytes: MAX_LOOKUP_BYTES,
  };
  const answer = await request(call);
  if (answer.status === 404) {
    if (notFound === 'service' && isDocumentedNotFound(answer, 'service')) return undefined;
    throw endpointGone(url, answer, `the service's ${what}`, GONE_HINT);
  }
  if (!isOk(answer.status)) throw answerError(answer, call);
  return jsonOf(answer, call);
}

/**
 * The service's own record of one transaction (`GET {baseURL}/tx/id/{HASH}`, no token), or
 * undefined when it does not know the hash; `KudosApiError` when it cannot be asked.
 */
export function fetchTransactionRecord(base: string, txHash: string, timeoutMs: number): Promise<unknown> {
  const url = base + apiPath(KUDOS_API.transaction, { hash: txHash.toUpperCase() });
  return getJson(url, `GET ${KUDOS_API.transaction}`, timeoutMs, 'service');
}

/** A result with nothing counted yet. */
export function emptyResult(): KudosReconcileResult {
  return { seen: 0, processed: 0, duplicates: 0, failed: 0, stale: 0, incomplete: false };
}

/** What became of one record fed: processed, already processed, held by a delivery, failed, or too old. */
export type FeedOutcome = 'processed' | 'duplicate' | 'held' | 'failed' | 'stale';

/** What the chain reconcile adds to a record it feeds (see `PipelineInput`). */
export interface FeedExtras {
  namePayer?: () => Promise<string | null>;
  chainAnswer?: { lcd: string; body: unknown };
}

/** Runs one record fetched from the service (or found on the chain) through the pipeline, counting what became of it. */
export async function feed(
  settings: PipelineSettings,
  record: unknown,
  result: KudosReconcileResult,
  extras: FeedExtras = {},
): Promise<FeedOutcome> {
  result.seen++;
  // Older than the TTL: its key may be forgotten, so a payment handled then would run again.
  const ts = isRecord(record) && typeof record.ts === 'number' ? record.ts : undefined;
  if (ts === undefined || ts < settings.now() - settings.dedupeTtlMs) {
    result.stale++;
    return 'stale';
  }
  try {
    // A record is a notification's `tx`; the service sends no metadata with it. Untrusted until
    // confirmed: whoever picked the hash (a return page's `tx_hash`) must not make it evict, or
    // be kept beside, what the service really delivered.
    const { outcome } = await observeNotification('reconcile', (message) =>
      runNotification(settings, {
        body: { tx: record },
        source: 'reconcile',
        trusted: false,
        req: undefined,
        message,
        ...extras,
      }),
    );
    if (outcome === 'duplicate') result.duplicates++;
    else result.processed++;
    return outcome;
  } catch (error) {
    result.failed++;
    // A delivery holds the same transaction right now (the return page and the notification came
    // together): it decides it; not a failure to tell.
    if (error instanceof KudosNotificationError && error.code === 'in_progress') return 'held';
    settings.report(asHandlerError(error), undefined);
    return 'failed';
  }
}

function checkBase(baseURL: unknown): string {
  if (typeof baseURL !== 'string' || !URL.canParse(baseURL)) {
    throw new TypeError('reconcile() requires "baseURL", the absolute URL of the Kudos API');
  }
  return withoutTrailingSlashes(baseURL);
}

/**
 * Fetches transaction records from the service and feeds each through the same pipeline and dedupe
 * keys as a delivery, so a payment is handled once whichever path came first: one transaction by
 * hash (only when `concerns` says it is the shop's), or a user's transactions since a time. Rejects with `KudosApiError` when the service cannot
 * be asked (a handler failure is counted in `failed` instead, and the record kept for `redrive()`).
 */
export async function reconcile(
  settings: PipelineSettings,
  args: KudosReconcileArgs,
  concerns: (record: unknown) => boolean = () => true,
): Promise<KudosReconcileResult> {
  const result = emptyResult();
  if (args !== null && typeof args === 'object' && 'client' in args) {
    return readHistory(settings, await clientPages(args), args.since, result);
  }
  const base = checkBase(args?.baseURL);
  const timeoutMs = args.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if ('txHash' in args) {
    if (typeof args.txHash !== 'string' || !/^[0-9A-Fa-f]{64}$/.test(args.txHash)) {
      throw new KudosNotificationError('invalid_tx_hash', {
        message: '"txHash" must be 64 hexadecimal characters',
        path: 'txHash',
      });
    }
    const record = await fetchTransactionRecord(base, args.txHash, timeoutMs);
    // A record that concerns someone else (a hash anyone may pick) touches no store: not even a claim.
    if (record !== undefined && concerns(record)) await feed(settings, record, result);
    return result;
  }
  if (typeof args.user !== 'string' || args.user === '' || typeof args.accessToken !== 'string') {
    throw new TypeError('reconcile() requires "txHash", "user" and "accessToken", or "client" and "userId"');
  }
  const { user, accessToken } = args;
  const page: HistoryPage = (query) =>
    getJson(
      `${base}${apiPath(KUDOS_API.history, { id: user })}?${query}`,
      `GET ${KUDOS_API.history}`,
      timeoutMs,
      'never',
      accessToken,
    );
  return readHistory(settings, page, args.since, result);
}

/** One page of a user's history: the records of `query` (`ts=...&count=10`). */
type HistoryPage = (query: string) => Promise<unknown>;

/** The pages of a user's history through the app's API client (a 404 is a route that is gone, as without it). */
async function clientPages({ client, userId }: KudosReconcileWithClient): Promise<HistoryPage> {
  if (typeof client?.json !== 'function' || typeof client.tokenSet !== 'function') {
    throw new TypeError('reconcile() option "client" must be the API client of createKudosClient()');
  }
  if (typeof userId !== 'string' || userId === '') {
    throw new TypeError('reconcile() with "client" requires "userId", the user\'s key in its token store');
  }
  const { user } = await client.tokenSet(userId);
  return (query) =>
    client.json(userId, `${apiPath(KUDOS_API.history, { id: user })}?${query}`).catch((error: unknown) => {
      // The service's history never answered 404 (a user with nothing got []): the route is gone.
      if (error instanceof KudosApiError && error.httpStatus === 404) {
        throw new KudosApiError('endpoint_gone', {
          message: `the service's GET ${KUDOS_API.history} answered 404: the route is gone. ${GONE_HINT}`,
          httpStatus: 404,
          cause: error,
        });
      }
      throw error;
    });
}

/** Reads a user's history page by page from `since` (default: the dedupe TTL back), feeding each record. */
async function readHistory(
  settings: PipelineSettings,
  page: HistoryPage,
  since = settings.now() - settings.dedupeTtlMs,
  result: KudosReconcileResult,
): Promise<KudosReconcileResult> {
  const seen = new Set<string>();
  // The first page starts at the service's own now (its clock, not ours); later ones at a cursor.
  let cursor: number | undefined;
  for (let count = 0; count < MAX_PAGES; count++) {
    const records = await page(`${cursor === undefined ? '' : `ts=${cursor}&`}count=10`);
    if (!Array.isArray(records)) {
      throw new KudosApiError('invalid_response', {
        message: 'Kudos API answered a transaction history that is not a list',
        httpStatus: 200,
      });
    }
    let fresh = 0;
    let oldest = cursor ?? Number.POSITIVE_INFINITY;
    let newest = Number.NEGATIVE_INFINITY;
    for (const record of records) {
      const ts = isRecord(record) && typeof record.ts === 'number' ? record.ts : undefined;
      const hash = isRecord(record) && typeof record.txHash === 'string' ? record.txHash.toUpperCase() : '';
      if (ts !== undefined) {
        oldest = Math.min(oldest, ts);
        newest = Math.max(newest, ts);
      }
      if (ts !== undefined && ts < since) continue;
      if (seen.has(hash)) continue;
      seen.add(hash);
      fresh++;
      await feed(settings, record, result);
    }
    // Newest first: a short page, or one that reached `since`, is the last.
    if (records.length < 10 || oldest < since || !Number.isFinite(oldest)) return result;
    // A full page of one time: the service pages by `ts` alone, so records of that time beyond these
    // ten can be reached by no page. Say so, then go on past it.
    if (newest === oldest) {
      result.incomplete = true;
      result.incompleteAt = Math.max(result.incompleteAt ?? oldest, oldest);
      result.incompleteReason = `page_of_one_time: the history held a full page of records of one time (${result.incompleteAt}); records of that time beyond it can be reached by no page`;
    }
    // The cursor is inclusive: the next page starts at the oldest time seen, and records already
    // seen there are skipped; a page of nothing new (or of one time) steps past that time.
    cursor = fresh === 0 || newest === oldest ? oldest - 1 : oldest;
  }
  return result;
}
