import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';

// Every install line of docs/ installs every package the snippets it serves import: a reader who runs
// the line and then the snippet meets no "Cannot find package". A line serves the code blocks after it
// up to the next heading (a line in a shell block, or `npm install ...` in the prose).

/** The packages an `npm install` line names (flags and versions left out, scopes kept). */
function installed(line: string): string[] {
  return line
    .replace(/#.*$/, '')
    .trim()
    .split(/\s+/)
    .slice(2)
    .filter((word) => !word.startsWith('-'))
    .map((word) => word.replace(/^(@?[^@]+)@.*$/, '$1'));
}

/** The package of an import specifier (`kudos-payments` is `passport-kudos`), or undefined for a builtin or a file. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages a code block loads at run time (type-only imports are erased). */
function imported(code: string): string[] {
  const found = [
    ...code.matchAll(/^import\s+(?!type\s)(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm),
    ...code.matchAll(/\brequire\(['"]([^'"]+)['"]\)/g),
  ].map((m) => packageOf(m[1] as string));
  return [...new Set(found.filter((p): p is string => p !== undefined))];
}

interface Scope {
  file: string;
  line: string;
  packages: string[];
  blocks: string[];
}

/** Each install line of a Markdown text with the code blocks it serves. */
function scopesOf(file: string, text: string): Scope[] {
  const scopes: Scope[] = [];
  let current: Scope | undefined;
  let block: { lang: string; lines: string[] } | undefined;
  const open = (line: string) => {
    current = { file, line, packages: installed(line), blocks: [] };
    scopes.push(current);
  };
  for (const line of text.split('\n')) {
    if (block) {
      if (line.startsWith('```')) {
        if (/^(ts|js|tsx|mjs|cjs|typescript|javascript)$/.test(block.lang))
          current?.blocks.push(block.lines.join('\n'));
        block = undefined;
      } else {
        if (/^(sh|bash|shell)$/.test(block.lang) && /^npm (install|i) /.test(line.trim())) open(line.trim());
        block.lines.push(line);
      }
      continue;
    }
    if (line.startsWith('```')) block = { lang: line.slice(3).trim(), lines: [] };
    else if (/^#{1,6} /.test(line)) current = undefined;
    else for (const m of line.matchAll(/`(npm install [^`]+)`/g)) open(m[1] as string);
  }
  return scopes;
}

const files = readdirSync('docs')
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

describe('install lines of docs/', () => {
  const scopes = files.flatMap((file) => scopesOf(file, readFileSync(file, 'utf8')));

  it('are found, each serving at least one snippet where it names more than one package', () => {
    expect(scopes.length).toBeGreaterThanOrEqual(4);
    const served = scopes.filter((s) => s.blocks.length > 0);
    expect(served.map((s) => s.file)).toEqual(
      expect.arrayContaining(['docs/frameworks.md', 'docs/observability.md']),
    );
  });

  it('install every package their snippets import', () => {
    const missing = scopes.flatMap((scope) =>
      scope.blocks.flatMap((code) =>
        imported(code)
          .filter((name) => !scope.packages.includes(name))
          .map((name) => `${scope.file}: "${scope.line}" lacks ${name}`),
      ),
    );
    expect(missing).toEqual([]);
  });

  it('reads an install line and a snippet as a reader would (the check itself)', () => {
    expect(installed('npm install -D a @b/c@^1.2.3 d@2 # a comment e')).toEqual(['a', '@b/c', 'd']);
    expect(
      imported(
        "import x from 'a/sub';\nimport type { T } from 'b';\nimport 'c';\nimport { y } from 'node:fs';",
      ),
    ).toEqual(['a', 'c']);
    const [scope] = scopesOf(
      'x.md',
      '## A\n```sh\nnpm install a\n```\n```ts\nimport b from "b";\n```\n## B\n```ts\nimport c from "c";\n```',
    );
    expect(scope).toMatchObject({ packages: ['a'], blocks: ['import b from "b";'] });
  });
});
