import { createHash } from 'node:crypto';

/**
 * The key layout of RedisDedupeStore, cluster-safe: every key one notification's scripts touch
 * (its claim, its kept record and the arrival index that lists it) carries the same hash tag, so a
 * Redis Cluster keeps them in one slot and runs each script on one node. The index is split into
 * {@link KEPT_SHARDS} shards, one per tag, so that the notifications spread over the cluster's
 * masters instead of all landing on the one slot a single index would pin them to:
 *
 *     <prefix>{<shard>}:claim:<key>   'done', or the token of the claim in progress (with its lease)
 *     <prefix>{<shard>}:kept:<key>    the notification kept for redrive (JSON)
 *     <prefix>{<shard>}:index         sorted set: kept keys of this shard by arrival time
 *
 * `<shard>` is 0 to 15, from the SHA-1 of the key. Changing the count would strand what is kept.
 */
export const KEPT_SHARDS = 16;

/** The keys of one notification. */
interface DedupeKeys {
  claim: string;
  kept: string;
  index: string;
}

/** The hash-tagged start of every key in `shard`. */
function tagged(prefix: string, shard: number): string {
  return `${prefix}{${shard}}`;
}

/** Which shard `key` belongs to. */
function shardOf(key: string): number {
  return (createHash('sha1').update(key).digest()[0] as number) % KEPT_SHARDS;
}

export function dedupeKeys(prefix: string, key: string): DedupeKeys {
  const tag = tagged(prefix, shardOf(key));
  return { claim: `${tag}:claim:${key}`, kept: `${tag}:kept:${key}`, index: `${tag}:index` };
}

/** The index of `shard`, and the kept record of a `key` it lists. */
export function shardKeys(prefix: string, shard: number): { index: string; kept: (key: string) => string } {
  const tag = tagged(prefix, shard);
  return { index: `${tag}:index`, kept: (key) => `${tag}:kept:${key}` };
}

/**
 * Throws when `prefix` would break the layout: Redis hashes the first `{...}` of a key, so a prefix
 * with an empty `{}` makes it hash the whole key, and one notification's keys would land in
 * different slots (CROSSSLOT on a cluster). A prefix with its own non-empty tag is fine: every key
 * then shares that one slot.
 */
export function checkPrefix(prefix: string, who: string): void {
  const open = prefix.indexOf('{');
  if (open >= 0 && prefix[open + 1] === '}') {
    throw new TypeError(
      `${who} option "prefix" must not contain an empty hash tag "{}": the store tags its keys itself`,
    );
  }
}
