// `GET {lcd}/cosmos/tx/v1beta1/txs`, the chain's transaction search by event, as either of the two
// programs that answer it (docs/kudos-service.md#the-chains-transaction-search) answers, rule for
// rule: the chain's own software (Cosmos SDK 0.46 with CometBFT 0.34, `chainSearch: 'sdk'`, the
// default) and the service's indexer in front of it (`chainSearch: 'indexer'`, most likely what the
// service's public node is). A client that pages one way only, leaves a value unquoted or asks past
// the end meets here what it would meet there.
import { CHAIN_EVENT_FILTER, CHAIN_SEARCH_MAX_LIMIT } from 'kudos-core/chain';
import { type ChainEvent, eventsOf, getTxResponse, loggedEvents } from '../model/chain-tx.js';
import type { EmulatorTransaction } from '../model/payments.js';
import { type Ctx, sendJson } from '../server/http.js';
import type { EmulatorState } from '../state.js';

/** One `events` condition: `type.attribute=value`. */
interface EventCondition {
  type: string;
  key: string;
  value: string;
}

/** The answer of a search: its status and body (indented as the SDK's gateway writes it, or not). */
type Answer = { status: number; body: unknown; indent?: number };

/** `type.attribute=value` split, the value as written (quoted or not); undefined without that shape. */
function splitCondition(text: string): { type: string; key: string; written: string } | undefined {
  const match = /^([^.=\s]+)\.([^=\s]+)=(.*)$/s.exec(text);
  return match
    ? { type: match[1] as string, key: match[2] as string, written: match[3] as string }
    : undefined;
}

/** A value single-quoted as both programs' query languages want a string: its text, else undefined. */
function quoted(written: string): string | undefined {
  return /^'[^']*'$/.test(written) ? written.slice(1, -1) : undefined;
}

/** The transactions in a block, oldest first: the indexer's rows, numbered from 1 in this order. */
function included(state: EmulatorState): EmulatorTransaction[] {
  return [...state.transactions.values()]
    .filter((tx) => tx.height !== undefined)
    .sort((a, b) => (a.height ?? 0) - (b.height ?? 0) || a.completeTs - b.completeTs);
}

/** Whether `events` meet every condition. */
function meets(events: readonly ChainEvent[], conditions: readonly EventCondition[]): boolean {
  return conditions.every((c) =>
    events.some((e) => e.type === c.type && e.attributes.some((a) => a.key === c.key && a.value === c.value)),
  );
}

/** A whole number of a query parameter; `fallback` when absent, empty or 0; undefined when not a number. */
function whole(value: string | null, fallback: number): number | undefined {
  if (value === null || value === '') return fallback;
  if (!/^[0-9]{1,15}$/.test(value)) return undefined;
  return Number(value) || fallback;
}

/** A page of transactions as both programs list them: `txs` and `tx_responses`, side by side. */
function listed(page: readonly EmulatorTransaction[]): { txs: unknown[]; tx_responses: unknown[] } {
  const entries = page.map(getTxResponse) as Array<{ tx: unknown; tx_response: unknown }>;
  return { txs: entries.map((e) => e.tx), tx_responses: entries.map((e) => e.tx_response) };
}

/** The SDK's error body, as its gateway writes it. */
function sdkError(status: number, code: number, message: string): Answer {
  return { status, body: { code, message, details: [] }, indent: 2 };
}

/**
 * The chain's own search (SDK 0.46, CometBFT 0.34): `events` required (400 code 3), each passing the
 * SDK's check (no spaces: 400 code 3) and then CometBFT's query parser, which wants a string value
 * single-quoted (a number may stand bare): else 500 code 2. `page` from 1 and `limit` (default 100,
 * above 100 silently 100); a page past the last is 500 code 2; every `pagination.*` is ignored. The
 * answer is indented, `pagination` null, `total` a string.
 */
function sdkSearch(state: EmulatorState, params: URLSearchParams): Answer {
  const texts = params.getAll('events');
  if (texts.length === 0) return sdkError(400, 3, 'must declare at least one event to search');
  const conditions: EventCondition[] = [];
  for (const text of texts) {
    const split = CHAIN_EVENT_FILTER.test(text) ? splitCondition(text) : undefined;
    if (!split) {
      return sdkError(
        400,
        3,
        `invalid event; event ${text.slice(0, 200)} should be of the format: {eventType}.{eventAttribute}={value}`,
      );
    }
    const value = quoted(split.written) ?? (/^[0-9]+$/.test(split.written) ? split.written : undefined);
    if (value === undefined) {
      return sdkError(500, 2, `failed to parse query: a value must be single-quoted: ${text.slice(0, 200)}`);
    }
    conditions.push({ type: split.type, key: split.key, value });
  }
  const found = included(state).filter((tx) => meets(eventsOf(tx), conditions));
  if (params.get('order_by') === 'ORDER_BY_DESC') found.reverse();
  const page = whole(params.get('page'), 1);
  const limit = whole(params.get('limit'), CHAIN_SEARCH_MAX_LIMIT);
  if (page === undefined || limit === undefined) return sdkError(400, 3, 'invalid page or limit');
  const perPage = Math.min(limit, CHAIN_SEARCH_MAX_LIMIT);
  const pages = Math.max(1, Math.ceil(found.length / perPage));
  if (page > pages) return sdkError(500, 2, `page should be within [1, ${pages}] range, given ${page}`);
  const from = (page - 1) * perPage;
  const body = {
    ...listed(found.slice(from, from + perPage)),
    pagination: null,
    total: String(found.length),
  };
  return { status: 200, body, indent: 2 };
}

/** The indexer's error: 400 `{"error": ...}`. */
function indexerError(message: string): Answer {
  return { status: 400, body: { error: message } };
}

/** A row's key, as the indexer writes `next_key`: its row number, 8 bytes little-endian, base64. */
function rowKey(row: number): string {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(BigInt(row));
  return bytes.toString('base64');
}

/** The row number of `pagination.key`; undefined when absent; null when it is no key. */
function keyRow(text: string | null): number | undefined | null {
  if (text === null || text === '') return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === 8 ? Number(bytes.readBigUInt64LE()) : null;
}

/** The indexer's conditions: every value single-quoted, no key twice; none is no filter at all. */
function indexerConditions(texts: readonly string[]): EventCondition[] | Answer {
  const conditions: EventCondition[] = [];
  for (const text of texts) {
    const split = splitCondition(text);
    if (!split) return indexerError(`invalid event query: ${text.slice(0, 200)}`);
    const value = quoted(split.written);
    if (value === undefined) return indexerError('expect query event value missing single quotes');
    if (conditions.some((c) => c.type === split.type && c.key === split.key)) {
      return indexerError(`event key ${split.type}.${split.key} given twice`);
    }
    conditions.push({ type: split.type, key: split.key, value });
  }
  return conditions;
}

/**
 * The service's indexer: reads `events` (only what a transaction's `logs` hold is indexed, so a
 * failed one is found by none), `order_by` (`DESC` or `ORDER_BY_DESC`, any case, newest first),
 * `pagination.limit` (1 when absent, most 100), `pagination.offset` (rounded down to a multiple of
 * the limit), `pagination.key` (rows after it) and `pagination.count_total` (the count, else "0");
 * `page` and `limit` are ignored. Past the end: 200 with empty lists. `next_key` whenever rows come
 * back.
 */
function indexerSearch(state: EmulatorState, params: URLSearchParams): Answer {
  const conditions = indexerConditions(params.getAll('events'));
  if (!Array.isArray(conditions)) return conditions;
  const rows = included(state)
    .map((tx, i) => ({ tx, row: i + 1 }))
    .filter(({ tx }) => meets(loggedEvents(tx), conditions));
  const newestFirst = /^(ORDER_BY_)?DESC$/i.test(params.get('order_by') ?? '');
  if (newestFirst) rows.reverse();
  const limit = whole(params.get('pagination.limit'), 1);
  const offset = whole(params.get('pagination.offset'), 0);
  const key = keyRow(params.get('pagination.key'));
  if (limit === undefined || offset === undefined || key === null) return indexerError('invalid pagination');
  const size = Math.min(limit, CHAIN_SEARCH_MAX_LIMIT);
  const after = key === undefined ? rows : rows.filter(({ row }) => (newestFirst ? row < key : row > key));
  const from = key === undefined ? Math.floor(offset / size) * size : 0;
  const page = after.slice(from, from + size);
  const last = page.at(-1);
  const total = params.get('pagination.count_total') === 'true' ? String(rows.length) : '0';
  const body = {
    ...listed(page.map(({ tx }) => tx)),
    pagination: { next_key: last ? rowKey(last.row) : null, total },
    total,
  };
  return { status: 200, body };
}

/** The search, as `chainSearch` says which program answers. */
export function chainSearch(state: EmulatorState, ctx: Ctx): void {
  const params = ctx.url.searchParams;
  const { status, body, indent } =
    state.options.chainSearch === 'indexer' ? indexerSearch(state, params) : sdkSearch(state, params);
  sendJson(ctx.res, status, body, indent);
}
