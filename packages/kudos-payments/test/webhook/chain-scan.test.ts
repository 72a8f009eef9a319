import { describe, expect, it } from 'vitest';
import type { ChainSearchPage } from '../../../kudos-core/src/chain/chain-search.js';
import type { ChainCheckpoint } from '../../src/recovery/chain-checkpoint.js';
import { readCheckpoint, writeCheckpoint } from '../../src/recovery/chain-checkpoint.js';
import type { SearchEntry, SearchPage } from '../../src/recovery/chain-reads.js';
import { MAX_PAGES, type ScanInput, scanTransfers } from '../../src/recovery/chain-scan.js';

// The scan of one address, on a listing in memory: what ends it, what stops it, what it remembers,
// and how the next run goes on. The nodes of test/webhook/reconcile-chain-paging.test.ts do the same
// over HTTP; here the edges that need thousands of pages or a listing that moves between two runs.

const NOW = 1_800_000_000_000;

/** `count` entries at heights 1..count (newest has the highest), one a minute back from NOW. */
function listing(count: number, first = 1): SearchEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const height = first + i;
    const hash = height.toString(16).toUpperCase().padStart(64, '0');
    return {
      found: { tx: {}, tx_response: { height: String(height), txhash: hash } },
      hash,
      height,
      time: NOW - (count - i) * 60_000,
    };
  });
}

/** A node over `entries`, newest first, paged by offset; what it was asked. */
function reader(entries: SearchEntry[], options: { total?: number } = {}) {
  const asked: ChainSearchPage[] = [];
  const read = async (page: ChainSearchPage): Promise<SearchPage> => {
    asked.push(page);
    const newest = [...entries].reverse();
    const from = (page.page - 1) * page.limit;
    return { entries: newest.slice(from, from + page.limit), total: options.total ?? entries.length };
  };
  return { read, asked };
}

/** A scan that decides every entry 'ok' (or as `verdict` says) and keeps what it saves. */
function scan(
  read: ScanInput['read'],
  checkpoint: ChainCheckpoint | undefined,
  verdict = (_e: SearchEntry) => 'ok' as const,
) {
  const decided: string[] = [];
  const saved: ChainCheckpoint[] = [];
  const input: ScanInput = {
    read,
    since: 0,
    checkpoint,
    decide: async (entry) => {
      decided.push(entry.hash as string);
      return verdict(entry);
    },
    save: async (c) => {
      saved.push(c);
    },
  };
  return { run: () => scanTransfers(input), decided, saved };
}

describe('scanTransfers()', () => {
  it('reads the window whole, then remembers its newest height: the next run asks one page', async () => {
    const entries = listing(250);
    const node = reader(entries);
    const first = scan(node.read, { done: null, retry: [] });
    expect(await first.run()).toMatchObject({ requests: 3, untimed: [] });
    expect(first.decided).toHaveLength(250);
    expect(first.saved.at(-1)).toEqual({ done: 250, retry: [] });
    entries.push(...listing(3, 251));
    const second = scan(node.read, first.saved.at(-1));
    expect(await second.run()).toMatchObject({ requests: 1 });
    expect(second.decided).toEqual(
      listing(3, 251)
        .map((e) => e.hash)
        .reverse(),
    );
  });

  it('stops after MAX_PAGES pages, saying so, with what it read saved for the next run', async () => {
    const node = reader(listing(MAX_PAGES * 100 + 50));
    const s = scan(node.read, { done: null, retry: [] });
    const result = await s.run();
    expect(result.stop).toEqual({
      reason: 'page_limit',
      detail: `${MAX_PAGES} pages read and the window goes on`,
    });
    expect(result.requests).toBe(MAX_PAGES);
    expect(s.saved.at(-1)?.frame).toMatchObject({ above: MAX_PAGES * 100 - 1 });
  });

  it('goes on from an earlier run’s frame in one jump, and checks the page it lands on', async () => {
    const entries = listing(900);
    const node = reader(entries);
    // An earlier run read heights 900 down to 401 (500 transfers above height 400), then stopped.
    const frame = { top: 900, below: 400, above: 500 };
    entries.push(...listing(20, 901));
    const s = scan(node.read, { done: null, retry: [], frame });
    await s.run();
    // Page 1 (what is new), then page 5 (positions 400-499: the last of the frame at 519), 6...
    expect(node.asked.map((p) => p.page)).toEqual([1, 6, 7, 8, 9, 10]);
    const decided = new Set(s.decided);
    expect(listing(400).every((e) => decided.has(e.hash as string))).toBe(true);
    expect(listing(20, 901).every((e) => decided.has(e.hash as string))).toBe(true);
    expect(decided.has(listing(1, 450)[0]?.hash as string)).toBe(false); // read by the earlier run
  });

  it('a listing that moved under the frame (another node behind the same URL): reads on page by page, nothing skipped', async () => {
    const node = reader(listing(600));
    // A frame from elsewhere: it claims 500 transfers above height 100, but only 500 exist above it here.
    const s = scan(node.read, { done: null, retry: [], frame: { top: 600, below: 100, above: 550 } });
    await s.run();
    const decided = new Set(s.decided);
    expect(listing(100).every((e) => decided.has(e.hash as string))).toBe(true);
    expect(node.asked.map((p) => p.page)).toEqual([1, 6, 2, 3, 4, 5, 6]);
  });

  it('forgets a checkpoint above the chain’s newest height (another chain, or a reset): reads the window whole', async () => {
    const node = reader(listing(30));
    const s = scan(node.read, { done: 5000, retry: [] });
    await s.run();
    expect(s.decided).toHaveLength(30);
    expect(s.saved.at(-1)).toEqual({ done: 30, retry: [] });
  });

  it('keeps what it could not decide whatever their number: 200 by hash, and the checkpoint held below the oldest of the rest', async () => {
    const node = reader(listing(450, 101));
    const s = scan(node.read, { done: 100, retry: [] }, () => 'retry' as never);
    const result = await s.run();
    expect(result.stop).toBeUndefined(); // read whole: nothing stops it
    expect(result.undecided).toEqual({ count: 450, first: listing(1, 550)[0]?.hash });
    const saved = s.saved.at(-1);
    expect(saved?.retry).toEqual(
      listing(200, 351)
        .map((e) => e.hash)
        .reverse(),
    ); // the newest 200
    expect(saved?.done).toBe(100); // the 250 others lie at heights 101 to 350: nothing above 100 counts as read
    expect(saved?.frame).toBeUndefined();
    // The next run, with every transfer decidable: the search brings all 450 again (the 200 kept by
    // hash are read first by hash in a real run, reconcile-chain-stores.test.ts), the 250 held among them.
    const again = scan(node.read, saved);
    await again.run();
    expect(new Set(again.decided)).toEqual(new Set(listing(450, 101).map((e) => e.hash)));
    expect(again.saved.at(-1)?.done).toBe(550);
  });

  it('ten thousand waiting: the checkpoint keeps 200 hashes whatever their number, and the next run decides every one', async () => {
    const node = reader(listing(10_000, 1));
    let down = true;
    const s = scan(node.read, { done: null, retry: [] }, () => (down ? ('retry' as never) : 'ok'));
    expect(await s.run()).toMatchObject({ undecided: { count: 10_000 } });
    const saved = s.saved.at(-1);
    expect(saved).toMatchObject({ done: 0 });
    expect(saved?.retry).toHaveLength(200);
    expect(JSON.stringify(saved).length).toBeLessThan(20_000); // bounded: 200 hashes, not 10,000
    down = false;
    const again = scan(node.read, saved);
    await again.run();
    expect(new Set(again.decided).size).toBe(10_000);
    expect(again.saved.at(-1)?.done).toBe(10_000);
  });

  it('undecided transfers in the middle of the window: the checkpoint stops just below the oldest past the 200', async () => {
    const node = reader(listing(600, 1));
    // Heights 301 to 560 cannot be decided (260 of them): 200 kept by hash, 60 (301-360) held.
    const s = scan(node.read, { done: null, retry: [] }, (e) =>
      (e.height as number) > 300 && (e.height as number) <= 560 ? ('retry' as never) : 'ok',
    );
    await s.run();
    expect(s.saved.at(-1)).toMatchObject({ done: 300 });
    expect(s.saved.at(-1)?.retry).toHaveLength(200);
  });

  it('an explicit window (no checkpoint) reads everything in it and saves nothing', async () => {
    const node = reader(listing(120));
    const s = scan(node.read, undefined);
    expect(await s.run()).toMatchObject({ requests: 2 });
    expect(s.decided).toHaveLength(120);
    expect(s.saved).toEqual([]);
  });
});

describe('checkpoints as saved', () => {
  it('read back what was written; anything else is no checkpoint', () => {
    const checkpoint: ChainCheckpoint = {
      done: 12,
      retry: ['A'.repeat(64)],
      frame: { top: 20, below: 15, above: 4 },
    };
    expect(readCheckpoint(writeCheckpoint(checkpoint))).toEqual(checkpoint);
    for (const text of [
      null,
      '',
      'not json',
      '{"v":2,"done":1}',
      '{"v":1,"done":-1}',
      '{"v":1,"done":"7"}',
    ]) {
      expect(readCheckpoint(text)).toBeUndefined();
    }
    // A frame that makes no sense is dropped, the rest kept; a hash that is none is left out.
    expect(readCheckpoint('{"v":1,"done":3,"retry":["x"],"frame":{"top":1,"below":9,"above":0}}')).toEqual({
      done: 3,
      retry: [],
    });
  });
});
