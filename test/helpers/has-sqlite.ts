import { sqliteAvailable } from '../../src/sqlite/index.js';

/**
 * Whether this Node has `node:sqlite` (22.13 and later), which the SQLite stores need. Its own file
 * (no test runner import): vitest.config.ts reads it too.
 */
export const HAS_SQLITE: boolean = sqliteAvailable();
