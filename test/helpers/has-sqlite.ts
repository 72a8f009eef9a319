import { isBuiltin } from 'node:module';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);

/**
 * Whether this Node has `node:sqlite` without a flag (22.13 and later), which the SQLite stores need.
 * Its own file (no test runner import): vitest.config.ts reads it too. Told without loading the
 * module, which would print node:sqlite's ExperimentalWarning in the runner's own process
 * (`sqliteAvailable()` of the package loads it; test/sqlite checks that the two agree).
 */
export const HAS_SQLITE: boolean = isBuiltin('node:sqlite') && (major > 22 || (major === 22 && minor >= 13));
