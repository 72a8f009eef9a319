// On a Node without node:sqlite (before 22.13) the benchmarks measure no SQLite store (and say so),
// so that `npm run bench` and its smoke test still run there.
import { sqliteAvailable } from 'kudos-payments/sqlite';

export const HAS_SQLITE = sqliteAvailable();

/** `variants` without those on SQLite (their `sqlite` is true) when this Node has no node:sqlite. */
export function runnable(variants) {
  return HAS_SQLITE ? variants : variants.filter((v) => !v.sqlite);
}
