import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorTableMarkdown } from '../../scripts/doc-tables.js';

// The README's code and tables are made from their sources (`npm run docs`): the code examples are
// the files of docs/snippets (type-checked by `npm run typecheck`, the quick start run by
// test/e2e/fresh-app.test.ts), the error table is KUDOS_ERROR_CODES.
const readme = readFileSync('README.md', 'utf8');
const FENCES: Record<string, string> = { ts: 'ts', cjs: 'js' };

describe('README.md', () => {
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

  it('lists every error code, from KUDOS_ERROR_CODES', () => {
    expect(readme).toContain(errorTableMarkdown());
  });

  it('starts with the two commands for a fresh clone', () => {
    const top = readme.slice(0, 600);
    expect(top).toContain('npm ci && npm start');
    expect(top).toContain('npm test');
  });
});
