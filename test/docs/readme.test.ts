import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorTableMarkdown } from '../../scripts/doc-tables.js';
import * as main from '../../src/index.js';
import * as redis from '../../src/redis/index.js';
import * as sqlite from '../../src/sqlite/index.js';
import * as testing from '../../src/testing/index.js';
import * as webhook from '../../src/webhook/index.js';

// The README's code and tables are made from their sources (`npm run docs`): the code examples are
// the files of docs/snippets (type-checked by `npm run typecheck`, the quick start run by
// test/e2e/fresh-app.test.ts), the error table is KUDOS_ERROR_CODES.
const readme = readFileSync('README.md', 'utf8');
const FENCES: Record<string, string> = { ts: 'ts', cjs: 'js' };

describe('README.md', () => {
  // A value an entry point exports is public: the README (or a page it links) says what it is for.
  it.each(
    Object.entries({ main, webhook, redis, sqlite, testing }).flatMap(([entry, values]) =>
      Object.keys(values).map((name) => [entry, name]),
    ),
  )("documents the %s entry point's %s", (_, name) => {
    const docs = [readme, readFileSync('docs/frameworks.md', 'utf8')].join('\n');
    expect(docs).toMatch(new RegExp(`\\b${name}\\b`));
  });

  const snippets = readdirSync('docs/snippets').filter((f) => /\.(ts|cjs)$/.test(f));

  it.each(snippets)('shows docs/snippets/%s verbatim', (file) => {
    const fence = FENCES[file.split('.').pop() as string];
    const code = readFileSync(join('docs/snippets', file), 'utf8').trimEnd();
    expect(readme).toContain(
      `<!-- generated:${file} -->\n\`\`\`${fence}\n${code}\n\`\`\`\n<!-- /generated:${file} -->`,
    );
  });

  it('has no code block outside the generated ones, except the shell commands and the login button', () => {
    const outside = readme.replace(/<!-- generated:([a-z0-9./-]+) -->[\s\S]*?<!-- \/generated:\1 -->/g, '');
    const languages = [...outside.matchAll(/^```(\w*)$/gm)].map((m) => m[1]).filter((_, i) => i % 2 === 0);
    expect(new Set(languages)).toEqual(new Set(['sh', 'html']));
  });

  // Every example that looks like a program is run by a test as a user would run it; any other one
  // says in its first line that it is a fragment, and where it goes.
  const RUN_BY: Record<string, string> = {
    'quickstart.ts': 'test/e2e/fresh-app.test.ts',
    'quickstart.cjs': 'test/e2e/fresh-app.test.ts',
    'verify-forms.ts': 'test/e2e/fresh-app.test.ts',
    'profile-hooks.ts': 'test/e2e/fresh-app.test.ts',
    'emulator-test.ts': 'test/e2e/fresh-app.test.ts',
    'webhook.ts': 'test/e2e/readme-webhook.test.ts',
  };
  it.each(snippets)('docs/snippets/%s is run by a test, or marked as a fragment', (file) => {
    const code = readFileSync(join('docs/snippets', file), 'utf8');
    const runner = RUN_BY[file];
    if (runner) expect(readFileSync(runner, 'utf8')).toContain(`docs/snippets/${file}`);
    else expect(code).toMatch(/^\/\/ Fragment: .+/);
  });

  it('lists every error code, from KUDOS_ERROR_CODES', () => {
    expect(readme).toContain(errorTableMarkdown());
  });

  it('opens with what the package is, and has the two commands for a fresh clone in its first screen', () => {
    const firstScreen = readme.split('\n').slice(0, 40).join('\n');
    expect(firstScreen).toMatch(/^# passport-kudos\n\nKudos is a tipping and payment service/);
    expect(firstScreen).toContain('## Developing passport-kudos');
    expect(firstScreen).toContain('npm ci && npm start');
    expect(firstScreen).toContain('npm test');
  });
});
