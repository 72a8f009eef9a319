// npm run docs: writes the generated parts of the READMEs from their one source: the emulator's
// route table (packages/kudos-emulator/src/server/route-table.ts), the error-code table (src/base/error-codes.ts), and the code
// examples (docs/snippets/*, type-checked and run by npm test). Each part sits between
// `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; the tests fail when a README's part
// differs from what this script writes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

/** Loads the TypeScript modules that hold the tables (bundled on the fly, nothing is installed). */
async function loadTables() {
  const dir = mkdtempSync(join(tmpdir(), 'passport-kudos-docs-'));
  try {
    const bundle = await rolldown({ input: 'scripts/doc-tables.ts', platform: 'node', logLevel: 'warn' });
    await bundle.write({ dir, format: 'esm', entryFileNames: 'tables.mjs' });
    await bundle.close();
    return await import(pathToFileURL(join(dir, 'tables.mjs')).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Replaces each generated part of `text` with the current one. */
export function fill(text, parts) {
  return text.replace(
    /(<!-- generated:([a-z0-9./-]+) -->)[\s\S]*?(<!-- \/generated:\2 -->)/g,
    (whole, open, name, close) => (name in parts ? `${open}\n${parts[name]}\n${close}` : whole),
  );
}

/** Each code example as a fenced block, named by its file. */
export function snippetParts(dir = 'docs/snippets') {
  const fences = { ts: 'ts', cjs: 'js', js: 'js', mjs: 'js' };
  const parts = {};
  for (const file of readdirSync(dir)) {
    const language = fences[file.split('.').pop()];
    if (language)
      parts[file] = `\`\`\`${language}\n${readFileSync(join(dir, file), 'utf8').trimEnd()}\n\`\`\``;
  }
  return parts;
}

const tables = await loadTables();
const parts = {
  routes: tables.routeTableMarkdown(),
  'error-codes': tables.errorTableMarkdown(),
  ...snippetParts(),
  // The framework integrations, as their tests run them.
  ...Object.fromEntries(
    [
      'test/frameworks/nestjs/kudos-auth.ts',
      'test/frameworks/nestjs/main.ts',
      'test/frameworks/fastify/kudos-auth.ts',
      'test/frameworks/fastify/kudos-webhook.ts',
      'test/frameworks/hono/kudos-webhook.ts',
      'test/frameworks/hono/kudos-payments.ts',
    ].map((file) => [file, `\`\`\`ts\n${readFileSync(file, 'utf8').trimEnd()}\n\`\`\``]),
  ),
};
// The READMEs and every page of docs/ (the user's guide and its reference pages).
const pages = readdirSync('docs')
  .filter((file) => file.endsWith('.md'))
  .map((file) => `docs/${file}`);
for (const file of [
  'README.md',
  'packages/kudos-core/README.md',
  'packages/kudos-payments/README.md',
  'packages/kudos-emulator/ARCHITECTURE.md',
  ...pages,
]) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  const next = fill(text, parts);
  if (next !== text) {
    writeFileSync(file, next);
    console.log(`docs: updated ${file}`);
  }
}
