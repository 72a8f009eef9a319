/**
 * A seeded 32-bit hash of a string for the dedupe store's key index: FNV-1a over the UTF-16 code units, then
 * MurmurHash3's finalizer so that every output bit depends on every input bit (the index takes the
 * low bits as the slot). The seed is random per store, so that whoever chooses the keys (a
 * notification's transaction hash) cannot choose keys that collide.
 *
 * @see http://www.isthe.com/chongo/tech/comp/fnv/ (FNV-1a)
 */
export function hashKey(key: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) | 0;
  for (let at = 0; at < key.length; at++) h = Math.imul(h ^ key.charCodeAt(at), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** A random seed for {@link hashKey}. */
export function randomSeed(): number {
  return (Math.random() * 0x1_0000_0000) | 0;
}
