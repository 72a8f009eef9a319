import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every @example of both packages' sources is code: each compiles as a file of a user's strict
// TypeScript project (NodeNext, skipLibCheck false), against the built packages, as the README's
// blocks do. An example that does not is stale, and is not there.

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The @example blocks of a file's doc comments, as code (the ```ts fence and the leading ` * ` gone). */
function examplesOf(text: string): string[] {
  const found: string[] = [];
  for (const comment of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
    const lines = (comment[1] ?? '').split('\n').map((line) => line.replace(/^\s*\* ?/, ''));
    let at = lines.findIndex((line) => line.startsWith('@example'));
    while (at !== -1) {
      const body: string[] = [];
      let i = at + 1;
      for (; i < lines.length && !(lines[i] ?? '').startsWith('@'); i++) body.push(lines[i] ?? '');
      const fenced = body.join('\n').match(/```ts\n([\s\S]*?)```/);
      found.push(fenced ? (fenced[1] ?? '') : body.join('\n'));
      at = lines.findIndex((line, j) => j >= i && line.startsWith('@example'));
    }
  }
  return found;
}

const files = [
  ...sources('src'),
  ...sources('packages/kudos-core/src'),
  ...sources('packages/kudos-payments/src'),
  ...sources('packages/kudos-emulator/src'),
];
const examples = files.flatMap((file) =>
  examplesOf(readFileSync(file, 'utf8')).map((code) => ({ file, code })),
);

describe('the @example blocks of the sources', () => {
  it('are fenced ```ts blocks', () => {
    expect(examples.length).toBeGreaterThanOrEqual(12);
    for (const { file, code } of examples) expect(code.trim(), file).not.toBe('');
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(/@example\n((?:\s*\*.*\n){1,2})/g)) {
        expect(m[1], file).toMatch(/```ts/);
      }
    }
  });

  it('compile in a strict user project against the built packages', () => {
    // Inside the repository, so that both packages resolve by name as an app resolves them.
    const dir = join('test-results', 'examples');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    examples.forEach(({ file, code }, i) => {
      writeFileSync(join(dir, `example-${i}.ts`), `// ${file}\n${code}\nexport {};\n`);
    });
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
          noEmit: true,
          esModuleInterop: true,
        },
        include: ['*.ts'],
      }),
    );
    let output = '';
    try {
      execFileSync(join('node_modules', '.bin', 'tsc'), ['-p', join(dir, 'tsconfig.json')], {
        encoding: 'utf8',
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  });
});
