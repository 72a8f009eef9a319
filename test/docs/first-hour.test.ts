import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// What a newcomer must find without guessing (issue: the first hour, fifth round): the example's port
// on the first screen, what an order's `data` takes, one story of the version, and the retry window
// beside the payments snippet.
const read = (file: string) => readFileSync(file, 'utf8');

describe('the first hour', () => {
  it('gives PORT= for the example in the README’s first 60 lines', () => {
    const first = read('README.md').split('\n').slice(0, 60).join('\n');
    expect(first).toMatch(/PORT=\d+ npm start/);
  });

  it('says in docs/payments.md that createOrder()’s data takes strings', () => {
    expect(read('docs/payments.md')).toMatch(/`data` is yours: a record of \*\*strings\*\*/);
  });

  it('tells one story of the version: 0.1.0, not yet published, in both CHANGELOGs', () => {
    for (const [changelog, manifest] of [
      ['CHANGELOG.md', 'package.json'],
      ['packages/kudos-emulator/CHANGELOG.md', 'packages/kudos-emulator/package.json'],
    ] as const) {
      const { version } = JSON.parse(read(manifest));
      const versions = [...read(changelog).matchAll(/^## \[([^\]]+)\](.*)$/gm)];
      expect(versions.map((m) => [m[1], m[2]?.trim()])).toEqual([[version, '- Unreleased']]);
      expect(read(changelog)).not.toMatch(/^## \[Unreleased\]/m);
    }
    expect(read('README.md')).toMatch(/Not on the npm registry yet \(0\.1\.0 is unreleased/);
  });

  it('says beside the payments snippet how long the service retries, and schedules reconcileChain()', () => {
    const readme = read('README.md');
    const after = readme.slice(readme.indexOf('<!-- /generated:payments.ts -->'));
    expect(after.slice(0, 2500)).toMatch(
      /retries a notification for seconds only \(the emulator: 5 attempts, about 7\.5 s\)/,
    );
    expect(read('docs/snippets/payments.ts')).toMatch(/payments\.reconcileChain\(\)[\s\S]*60_000/);
  });
});
