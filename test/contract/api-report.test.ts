import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The API-report check (scripts/api-report.mjs, run by npm test) on a copy of passport-kudos's
// published declarations and reports, inside the repository (so kudos-core resolves as it does for
// the package): as built, it passes; with an export added and the report not updated, it fails and
// names the report to update.

const COPY = join('test-results', 'api-check');

/** The check on the copy: its exit status and what it printed. */
function check(): { status: number; output: string } {
  try {
    const output = execFileSync(
      process.execPath,
      ['scripts/api-report.mjs', '--package', 'passport-kudos', '--dir', COPY],
      { encoding: 'utf8', stdio: 'pipe', timeout: 60_000 },
    );
    return { status: 0, output };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { status: failed.status, output: `${failed.stdout}${failed.stderr}` };
  }
}

describe('the API report check', () => {
  beforeAll(() => {
    rmSync(COPY, { recursive: true, force: true });
    mkdirSync(COPY, { recursive: true });
    for (const part of ['package.json', 'api', 'dist/esm'])
      cpSync(part, join(COPY, part), { recursive: true });
  });
  afterAll(() => rmSync(COPY, { recursive: true, force: true }));

  it('passes on the declarations as built, and fails on an export added without its report', () => {
    expect(check()).toMatchObject({ status: 0, output: expect.stringContaining('match their reports') });
    appendFileSync(
      join(COPY, 'dist/esm/otel/index.d.ts'),
      '\nexport declare const addedWithoutReport: number;\n',
    );
    const after = check();
    expect(after.status).toBe(1);
    expect(after.output).toContain(join(COPY, 'api', 'otel.api.md'));
    expect(after.output).toContain('npm run api');
  }, 120_000);
});
