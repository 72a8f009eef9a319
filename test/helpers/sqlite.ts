import { describe } from 'vitest';
import { HAS_SQLITE } from './has-sqlite.js';

export { HAS_SQLITE };

/**
 * `describe` for a suite that needs `node:sqlite` (Node 22.13 and later): on an older Node (20, which
 * `engines` admits) it is not defined at all, and vitest.config.ts says so in one line; so the run
 * counts no skipped test (CI fails on one) and every suite it defines runs. CI's full run is on a Node
 * that has it.
 */
export function describeSqlite(name: string, body: () => void): void {
  if (HAS_SQLITE) describe(name, body);
}
