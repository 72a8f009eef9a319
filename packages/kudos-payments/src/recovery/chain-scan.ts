// One scan of the chain's search for the transfers to one address: page after page, newest first,
// until it has seen the whole window (or reached what an earlier run read whole), deciding each
// transfer once. Nothing the node says is taken on trust: `total` is checked against the pages, a
// short page is a node's own page size when more remain, entries out of order are never taken as
// the end, and a node that repeats itself or contradicts its `total` is stopped and named. Nothing
// read is dropped: a transfer that could not be decided is kept to read again (up to MAX_RETRY by
// hash), and past that the checkpoint is not moved past the oldest of the rest, so that the next run
// reads them again from the search: memory stays bounded whatever their number.
import { CHAIN_SEARCH_MAX_LIMIT, type ChainSearchPage } from 'kudos-core/chain';
import { type ChainCheckpoint, MAX_RETRY, type ScanFrame } from './chain-checkpoint.js';
import type { SearchEntry, SearchPage } from './chain-reads.js';

/** Most pages one scan reads. */
export const MAX_PAGES = 1_000;

/** Why a scan did not read its window whole, as a stable word. */
export type KudosChainScanStop =
  /** A page held only transactions the scan had read already (a node that repeats a page). */
  | 'repeated_page'
  /** The pages contradict the node's `total` (more than it says, or none where it says more remain). */
  | 'total_contradicted'
  /** `MAX_PAGES` pages read, and the window goes on. */
  | 'page_limit';

/** What deciding one entry came to: done with it, to read again later, or not decidable (no block time). */
export type EntryVerdict = 'ok' | 'retry' | 'untimed';

/** What one scan reads with. */
export interface ScanInput {
  /** One page of the search. */
  read(page: ChainSearchPage): Promise<SearchPage>;
  /** Transfers in blocks from this time on (epoch ms). */
  since: number;
  /** What earlier runs read; undefined: read the window whole and remember nothing. */
  checkpoint: ChainCheckpoint | undefined;
  /** Decides one transfer the scan has not read before. */
  decide(entry: SearchEntry): Promise<EntryVerdict>;
  /** Saves what is read so far (after each page, and at the end); not called without a checkpoint. */
  save(checkpoint: ChainCheckpoint): Promise<void>;
}

/** How a scan ended. */
export interface ScanResult {
  /** Requests made to the search. */
  requests: number;
  /** Undefined when the window was read whole. */
  stop?: { reason: KudosChainScanStop; detail: string };
  /** Transfers seen without a block time even in their lookup: decided by no one. */
  untimed: string[];
  /** Transfers that could not be decided, each read again by the next run: those kept by hash, and the rest. */
  undecided: { count: number; first: string | undefined };
}

/** The state of one scan, page by page. */
class Scan {
  requests = 0;
  /** Offset of the next page in the node's listing (a multiple of `limit`). */
  position = 0;
  limit = CHAIN_SEARCH_MAX_LIMIT;
  /** False once the node answered out of order: nothing it lists is then taken as the end. */
  ordered = true;
  /** The largest `total` the node gave. */
  total: number | undefined;
  /** The newest height of this run (its first page). */
  top: number | undefined;
  /** The highest height seen, for a node out of order. */
  highest = 0;
  /** The last height read in the node's order (to see whether it keeps the order). */
  last: number | undefined;
  readonly seen = new Set<string>();
  readonly untimed: string[] = [];
  /** Every height in (`readBelow`, `top`] has been read, whole; `readAbove` transfers lie above it. */
  readBelow: number | undefined;
  readAbove = 0;
  /** How many transfers are above the earlier run's frame (read before reaching it); undefined until reached. */
  gap: number | undefined;
  /** Whether the scan jumped over the earlier run's frame. */
  jumped = false;
  /** Where the jump left from, until the page it landed on is checked. */
  landing: number | undefined;
  done: number | null;
  frame: ScanFrame | undefined;
  /** Undecided transfers kept to read again by hash (at most MAX_RETRY). */
  retry: string[];
  /**
   * Undecided transfers past MAX_RETRY: how many, and the lowest height among them (null: one had
   * no height), below which the checkpoint may not move.
   */
  overflow: { count: number; lowest: number | null; first: string } | undefined;

  constructor(readonly input: ScanInput) {
    this.done = input.checkpoint?.done ?? null;
    this.frame = input.checkpoint?.frame;
    this.retry = [...(input.checkpoint?.retry ?? [])];
  }

  /** A transfer that could not be decided: kept by hash while there is room, else held below the checkpoint. */
  undecided(hash: string, height: number | undefined): void {
    if (this.retry.includes(hash)) return;
    if (this.retry.length < MAX_RETRY) {
      this.retry.push(hash);
      return;
    }
    const lowest = height ?? null;
    const o = this.overflow;
    if (!o) this.overflow = { count: 1, lowest, first: hash };
    else {
      o.count++;
      o.lowest = o.lowest === null || lowest === null ? null : Math.min(o.lowest, lowest);
    }
  }

  /** Whether heights at or below `height` were read by an earlier run (whole, or in its frame). */
  readBefore(height: number | undefined): boolean {
    if (height === undefined) return false;
    if (this.done !== null && height <= this.done) return true;
    return (
      this.frame !== undefined &&
      this.gap !== undefined &&
      height > this.frame.below &&
      height <= this.frame.top
    );
  }
}

/** Whether a page's heights go down (or stay) in the node's order, from the height before it. */
function inOrder(entries: readonly SearchEntry[], before: number | undefined): boolean {
  let last = before;
  for (const { height } of entries) {
    if (height === undefined) continue;
    if (last !== undefined && height > last) return false;
    last = height;
  }
  return true;
}

/** The first page's newest height: an earlier run's checkpoint above it is another chain's (a reset), and forgotten. */
function startAt(scan: Scan, entries: readonly SearchEntry[]): void {
  scan.top = entries.find((e) => e.height !== undefined)?.height;
  if (scan.top === undefined) return;
  if (scan.done !== null && scan.done > scan.top) scan.done = null;
  if (scan.frame && scan.frame.top > scan.top) scan.frame = undefined;
  if (!scan.frame) scan.gap = 0;
}

/**
 * Decides the entries of one page; true when the window ends on it (ordered: a transfer an earlier
 * run read whole, or one older than `since`).
 */
async function readEntries(scan: Scan, entries: readonly SearchEntry[]): Promise<boolean> {
  const { input } = scan;
  for (const [index, entry] of entries.entries()) {
    if (entry.hash !== undefined) {
      if (scan.seen.has(entry.hash)) continue;
      scan.seen.add(entry.hash);
    }
    const { height, time } = entry;
    if (height !== undefined) scan.highest = Math.max(scan.highest, height);
    if (
      scan.ordered &&
      scan.frame &&
      scan.gap === undefined &&
      height !== undefined &&
      height <= scan.frame.top
    ) {
      // The earlier run's frame starts here: everything above it is read now.
      scan.gap = scan.position + index;
    }
    const older = time !== undefined && time < input.since;
    if (scan.ordered && (older || (height !== undefined && scan.done !== null && height <= scan.done)))
      return true;
    if (older || scan.readBefore(height) || entry.hash === undefined) continue;
    const verdict = await input.decide(entry);
    if (verdict === 'untimed') scan.untimed.push(entry.hash);
    if (verdict === 'retry') scan.undecided(entry.hash, height);
  }
  return false;
}

/** After a page read in order: how far down everything is read now, and where that height starts. */
function advance(scan: Scan, entries: readonly SearchEntry[]): void {
  if (!scan.ordered || scan.gap === undefined) return;
  if (scan.readBelow === undefined && scan.frame) {
    scan.readBelow = scan.frame.below;
    scan.readAbove = scan.frame.above + scan.gap;
  }
  for (const [index, { height }] of entries.entries()) {
    if (height === undefined) continue;
    if (scan.readBelow === undefined || height < scan.readBelow) {
      scan.readBelow = height;
      scan.readAbove = scan.position + index;
    }
  }
}

/**
 * What the scan has read so far, as a checkpoint. Undecided transfers past those kept by hash hold it
 * back: it says read only what lies below the oldest of them, so the next run reads them again.
 */
function checkpointOf(scan: Scan, finished: boolean): ChainCheckpoint {
  const { retry, overflow } = scan;
  if (overflow) {
    const below = overflow.lowest === null ? scan.done : overflow.lowest - 1;
    const done = finished && below !== null ? Math.max(below, scan.done ?? 0) : scan.done;
    return { done, retry, ...(scan.frame ? { frame: scan.frame } : {}) };
  }
  if (finished) {
    // In order, the newest height read is where the next run stops; out of order, the highest seen.
    const newest = scan.ordered ? scan.top : scan.highest > 0 ? scan.highest : undefined;
    return { done: Math.max(newest ?? 0, scan.done ?? 0) || scan.done, retry };
  }
  if (scan.top !== undefined && scan.readBelow !== undefined && scan.ordered) {
    return { done: scan.done, retry, frame: { top: scan.top, below: scan.readBelow, above: scan.readAbove } };
  }
  return { done: scan.done, retry, ...(scan.frame ? { frame: scan.frame } : {}) };
}

/**
 * After a page: past the earlier run's frame in one jump once the transfers above it are read (to the
 * page holding the last transfer above its lowest height, checked when it comes); else the next page.
 */
function jumpOverFrame(scan: Scan): void {
  const { frame, gap } = scan;
  if (!scan.ordered || !frame || gap === undefined || scan.jumped) return;
  const target = frame.above + gap - 1;
  if (target < scan.position + scan.limit) return;
  scan.jumped = true;
  scan.landing = scan.position;
  scan.position = Math.floor(target / scan.limit) * scan.limit;
}

/** A page a node cut short while more remain: its own page size from now on (one that divides the offset). */
function shrinkLimit(scan: Scan, got: number): void {
  let limit = got;
  while (limit > 1 && scan.position % limit !== 0) limit--;
  scan.limit = limit;
}

/** A stop with its reason, saved with what was read. */
async function stopped(scan: Scan, reason: KudosChainScanStop, detail: string): Promise<ScanResult> {
  if (scan.input.checkpoint) await scan.input.save(checkpointOf(scan, false));
  return {
    requests: scan.requests,
    stop: { reason, detail },
    untimed: scan.untimed,
    undecided: undecidedOf(scan),
  };
}

async function finished(scan: Scan): Promise<ScanResult> {
  if (scan.input.checkpoint) await scan.input.save(checkpointOf(scan, true));
  return { requests: scan.requests, untimed: scan.untimed, undecided: undecidedOf(scan) };
}

function undecidedOf(scan: Scan): ScanResult['undecided'] {
  return {
    count: scan.retry.length + (scan.overflow?.count ?? 0),
    first: scan.retry[0] ?? scan.overflow?.first,
  };
}

/** The page a jump landed on must begin above the frame's lowest height; else the listing moved: read on from where the jump left. */
function landed(scan: Scan, entries: readonly SearchEntry[]): boolean {
  if (scan.landing === undefined || !scan.frame) return true;
  const first = entries.find((e) => e.height !== undefined)?.height;
  if (first !== undefined && first > scan.frame.below) {
    scan.landing = undefined;
    return true;
  }
  scan.position = scan.landing;
  scan.landing = undefined;
  scan.frame = undefined;
  scan.readBelow = undefined;
  return false;
}

/** Whether the page keeps the node's order; out of order (a node that ignores `order_by`), nothing it lists ends the window. */
function keepsOrder(scan: Scan, entries: readonly SearchEntry[]): boolean {
  if (!scan.ordered || inOrder(entries, scan.last)) return true;
  scan.ordered = false;
  if (!scan.jumped) return true;
  // A jump taken on the order's word is undone: read again from the start.
  scan.position = 0;
  scan.seen.clear();
  return false;
}

/** Why the node is not to be believed after this page, if it is not. */
function contradiction(
  scan: Scan,
  entries: readonly SearchEntry[],
  fresh: number,
): [KudosChainScanStop, string] | undefined {
  const { total, position } = scan;
  if (entries.length === 0) {
    return total !== undefined && position < total
      ? [
          'total_contradicted',
          `the node says ${total} transactions match, and answered none from offset ${position}`,
        ]
      : undefined;
  }
  if (fresh === 0)
    return ['repeated_page', `the page at offset ${position} held only transactions already read`];
  if (total !== undefined && position + entries.length > total) {
    return [
      'total_contradicted',
      `the node says ${total} transactions match, and listed ${position + entries.length}`,
    ];
  }
  return undefined;
}

/** Reads the transfers of one address: see the file's comment. Rejects when the node cannot be asked. */
export async function scanTransfers(input: ScanInput): Promise<ScanResult> {
  const scan = new Scan(input);
  for (;;) {
    if (scan.requests >= MAX_PAGES)
      return stopped(scan, 'page_limit', `${MAX_PAGES} pages read and the window goes on`);
    const page = await input.read({ page: scan.position / scan.limit + 1, limit: scan.limit });
    scan.requests++;
    const { entries } = page;
    if (page.total !== undefined) scan.total = Math.max(scan.total ?? 0, page.total);
    if (scan.requests === 1) startAt(scan, entries);
    if (!landed(scan, entries) || !keepsOrder(scan, entries)) continue;
    for (const { height } of entries) if (height !== undefined) scan.last = height;
    const before = scan.seen.size;
    if (await readEntries(scan, entries)) return finished(scan);
    const wrong = contradiction(scan, entries, scan.seen.size - before);
    if (wrong) return stopped(scan, ...wrong);
    if (entries.length === 0) return finished(scan);
    advance(scan, entries);
    if (input.checkpoint) await input.save(checkpointOf(scan, false));
    scan.position += entries.length;
    if (scan.total !== undefined && scan.position >= scan.total) return finished(scan);
    if (entries.length < scan.limit) {
      // No total: a short page is the last. With one that says more remain: the node's own page size.
      if (scan.total === undefined) return finished(scan);
      shrinkLimit(scan, entries.length);
    }
    jumpOverFrame(scan);
  }
}
