import { describe } from 'vitest';
import { HAS_SQLITE } from './has-sqlite.js';

export { HAS_SQLITE };

/**
 * `describe` for a suite that needs `node:sqlite`: on an older Node (the README's commands run on
 * Node 20 too) it is skipped, with the reason in its name. CI's Nodes all have it, and CI fails on a
 * skipped test, so there it always runs.
 */
export function describeSqlite(name: string, body: () => void): void {
  describe.skipIf(!HAS_SQLITE)(
    HAS_SQLITE ? name : `${name} [skipped: needs node:sqlite, Node 22.13 or later]`,
    body,
  );
}
