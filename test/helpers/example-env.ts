import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The environment of one example app in a test: a port of its own and a data folder of its own (the
 * webhook's SQLite store), so that examples started by tests running side by side share nothing.
 */
export function exampleEnv(env: Record<string, string>): Record<string, string> {
  return { PORT: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'kudos-example-data-')), ...env };
}
