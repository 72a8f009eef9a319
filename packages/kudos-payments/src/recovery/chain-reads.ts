// The two reads of the chain's REST (LCD) interface that the way back makes: one page of the search
// by event (paged so that the chain's own software and an indexer answer the same page), and one
// transaction by its hash. Each names the URL that answered when it is not a chain's answer.
import {
  answerError,
  apiPath,
  endpointGone,
  type HttpAnswer,
  type HttpCall,
  isDocumentedNotFound,
  isOk,
  isRecord,
  jsonOf,
  KUDOS_CHAIN,
  KudosApiError,
  request,
} from 'kudos-core';
import { type ChainSearchPage, chainSearchQuery, searchTotal } from 'kudos-core/chain';
import { blockTimeOf } from '../core/chain-tx.js';

/** What to do when no chain answers at the LCD's URL. */
const GONE_HINT =
  'Set "restURL" to a chain node\'s REST (LCD) interface (the service\'s {baseURL}/cosmos/lcd proxy is gone since 2026-05-21).';

/** Largest page read: a page of 100 transactions is a few hundred kB. */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;

/** One transaction of a search page, with what the scan orders it by. */
export interface SearchEntry {
  /** `{ tx, tx_response }`, as a lookup by hash answers it. */
  found: { tx: unknown; tx_response: unknown };
  /** Its hash in upper case; undefined when the entry has none. */
  hash: string | undefined;
  /** Its block's height; undefined when it has none. */
  height: number | undefined;
  /** Its block's time (epoch ms); undefined when the entry has none. */
  time: number | undefined;
}

/** One page of the search: its entries in the node's order, and how many the whole search matches. */
export interface SearchPage {
  entries: SearchEntry[];
  /** The node's `total` (either spelling); undefined when it gave none. */
  total: number | undefined;
}

/** An entry of the answer: `tx_responses[i]` paired with `txs[i]`. */
function entryOf(response: unknown, tx: unknown): SearchEntry {
  const found = { tx: tx ?? (isRecord(response) ? response.tx : undefined), tx_response: response };
  const hash = isRecord(response) && typeof response.txhash === 'string' ? response.txhash : '';
  const height = isRecord(response) ? Number(response.height) : Number.NaN;
  return {
    found,
    hash: /^[0-9A-Fa-f]{64}$/.test(hash) ? hash.toUpperCase() : undefined,
    height: Number.isSafeInteger(height) && height > 0 ? height : undefined,
    time: blockTimeOf(found),
  };
}

function pageOf(body: unknown): SearchPage {
  if (!isRecord(body) || !Array.isArray(body.tx_responses)) {
    throw new KudosApiError('invalid_response', {
      message: "the chain's transaction search answered something that is not a list of transactions",
      httpStatus: 200,
    });
  }
  const txs = Array.isArray(body.txs) ? body.txs : [];
  return {
    entries: body.tx_responses.map((response, i) => entryOf(response, txs[i])),
    total: searchTotal(body),
  };
}

/**
 * The chain's own "nothing matches" in a 404: its not-found JSON (`{"code":5,…}`, gRPC's NotFound).
 * The SDK answers a search that matches nothing with 200 and an empty list; a gateway's bare `Not
 * Found` for a path it does not serve, another code, or an HTML page is a route that is gone.
 */
function isEmptySearch(answer: HttpAnswer): boolean {
  if (!isDocumentedNotFound(answer, 'chain')) return false;
  const body: unknown = JSON.parse(answer.body);
  return isRecord(body) && body.code === 5 && body.message !== 'Not Found';
}

/** `GET {lcd}/cosmos/tx/v1beta1/txs?events=transfer.recipient='ADDRESS'`: one page, newest first. */
export async function searchPage(
  lcd: string,
  address: string,
  page: ChainSearchPage,
  timeoutMs: number,
): Promise<SearchPage> {
  const call: HttpCall = {
    service: 'api',
    what: `GET ${KUDOS_CHAIN.txsByEvent}`,
    url: `${lcd}${KUDOS_CHAIN.txsByEvent}?${chainSearchQuery(address, page)}`,
    headers: { accept: 'application/json' },
    timeoutMs,
    maxBytes: MAX_PAGE_BYTES,
  };
  const answer = await request(call);
  if (answer.status === 404) {
    if (isEmptySearch(answer)) return { entries: [], total: 0 };
    throw endpointGone(call.url, answer, "the chain's transaction search", GONE_HINT);
  }
  if (!isOk(answer.status)) throw answerError(answer, call);
  return pageOf(jsonOf(answer, call));
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
export async function lookUpTx(read: Pick<ChainLookup, 'lcd' | 'timeoutMs'>, hash: string): Promise<unknown> {
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
