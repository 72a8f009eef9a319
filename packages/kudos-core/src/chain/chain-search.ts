// The chain's transaction search by event, as both programs that answer it page it
// (docs/kudos-service.md#the-chains-transaction-search): the chain's own software (Cosmos SDK 0.46)
// reads `page` and `limit`, ignores the deprecated `pagination.*` and answers `total` at the top
// level; an indexer on the same path reads `pagination.offset` and `pagination.limit` (1 when absent),
// and counts (`total` and `pagination.total`) only when asked `pagination.count_total=true`, else
// answers "0". Which of the two a node URL is cannot be known in advance (the service's public node
// is most likely the indexer), so a client asks every page in both spellings at once, asks the
// indexer to count, and reads `total` wherever it is.
import { isRecord } from '../base/guards.js';

/** Most transactions one page holds (the SDK's and the indexer's own most). */
export const CHAIN_SEARCH_MAX_LIMIT = 100;

/**
 * What the SDK accepts as one `events` condition: `type.attribute=value`, no spaces around `=`
 * (anything else is refused: 400 `{"code":3,"message":"invalid event; ..."}`).
 */
export const CHAIN_EVENT_FILTER = /^[a-zA-Z_]+\.[a-zA-Z_]+=\S+$/;

/** The `events` condition of the transfers to `address`, as the chain matches it. */
export function transferFilter(address: string): string {
  return `transfer.recipient='${address}'`;
}

/** One page of the search, asked so that either kind of node answers the same transactions. */
export interface ChainSearchPage {
  /** Page number, from 1. */
  page: number;
  /** Transactions a page; at most {@link CHAIN_SEARCH_MAX_LIMIT}. */
  limit: number;
}

/**
 * The query of one page: the events, newest first, and the page in both spellings (`page`/`limit`
 * for the SDK, the matching `pagination.offset`/`pagination.limit` for an indexer, which is also asked
 * to count: `pagination.count_total=true`; the SDK ignores every `pagination.*`).
 */
export function chainSearchQuery(address: string, { page, limit }: ChainSearchPage): URLSearchParams {
  return new URLSearchParams({
    events: transferFilter(address),
    order_by: 'ORDER_BY_DESC',
    page: String(page),
    limit: String(limit),
    'pagination.offset': String((page - 1) * limit),
    'pagination.limit': String(limit),
    'pagination.count_total': 'true',
  });
}

/**
 * How many transactions the whole search matches, as the answer says: the SDK's top-level `total`,
 * or an indexer's `pagination.total` (both strings of digits); undefined when neither is a count. A
 * total of 0 beside a page of transactions is no count (an indexer that was not asked to count
 * answers "0"), never a contradiction.
 */
export function searchTotal(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  const pagination = isRecord(body.pagination) ? body.pagination : {};
  const rows = Array.isArray(body.tx_responses) ? body.tx_responses.length : 0;
  for (const value of [body.total, pagination.total]) {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^[0-9]{1,15}$/.test(text)) continue;
    const total = Number(text);
    if (total > 0 || rows === 0) return total;
  }
  return undefined;
}
