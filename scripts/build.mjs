// Builds dist/esm (ES modules) and dist/cjs (CommonJS). Code: one bundle per entry point with
// rolldown (shared code in chunks), because loading one file instead of fifteen halves the time
// `require('passport-kudos')` takes (see BENCHMARKS.md). Types: tsc declarations, one per source file.
// Each folder gets a package.json naming its module type, so Node and TypeScript read both right.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { resolve } from 'node:path';
import { rolldown } from 'rolldown';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = [
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
];

/** The root entry point, as rolldown names modules (an absolute path). */
const ROOT = resolve('src/index.ts');
/** The modules ROOT imports at load: the same graph for both formats, so read once. */
let rootModules;

/**
 * Whether the root entry point imports `id` at load, directly or not: what `require('passport-kudos')`
 * compiles. Its dynamic imports (the API client's calls, refresh) are left out: they are loaded when
 * first used. Read from rolldown's module graph.
 */
function rootLoads(id, ctx) {
  if (!rootModules) {
    rootModules = new Set();
    const visit = (module) => {
      if (rootModules.has(module)) return;
      rootModules.add(module);
      for (const next of ctx.getModuleInfo(module)?.importedIds ?? []) visit(next);
    };
    visit(ROOT);
  }
  return rootModules.has(id);
}

/** Whether the root entry point loads `id` and something else imports it too (another entry point, a lazy part). */
function sharedWithRoot(id, ctx) {
  if (!rootLoads(id, ctx)) return false;
  const info = ctx.getModuleInfo(id);
  return [...(info?.importers ?? []), ...(info?.dynamicImporters ?? [])].some((by) => !rootLoads(by, ctx));
}

const input = {
  index: 'src/index.ts',
  'webhook/index': 'src/webhook/index.ts',
  'redis/index': 'src/redis/index.ts',
  'sqlite/index': 'src/sqlite/index.ts',
  'testing/index': 'src/testing/index.ts',
  'otel/index': 'src/otel/index.ts',
  'contract/index': 'src/contract/index.ts',
};

// A tarball packed by the tests (test/helpers/packed-app.ts) while other tests read dist/: npm runs
// `prepack` even with --ignore-scripts, and a rebuild empties dist/ under them. npm test built it.
if (process.env.KUDOS_PACK_BUILT === '1' && existsSync('dist/cjs/package.json')) process.exit(0);

rmSync('dist', { recursive: true, force: true });
const bundle = await rolldown({ input, platform: 'node', external, logLevel: 'warn' });
for (const [dir, format] of [
  ['dist/esm', 'esm'],
  ['dist/cjs', 'cjs'],
]) {
  await bundle.write({
    dir,
    format,
    entryFileNames: '[name].js',
    // The JavaScript without its doc comments (the declarations keep them, and so does src/): they
    // were a third of what require('passport-kudos') compiles. Annotations that bundlers read stay.
    comments: { legal: true, annotation: true, jsdoc: false },
    chunkFileNames: 'shared/[name]-[hash].js',
    // What the root entry point loads that other entry points or its lazy parts use too (the base
    // layer, the wire contract, the token set), in one chunk: loading the main entry point reads two
    // files. The rest stays with what uses it: the parts of the contract only payments read (wallet
    // addresses, whose bech32 library would cost every require() some 7 ms; the widget's
    // parameters; the notification's shape), and what the root loads when first used (the API
    // client's calls and their fetch transport, refresh): a sign-in never loads them.
    codeSplitting: {
      groups: [{ debugName: 'shared', name: (id, ctx) => (sharedWithRoot(id, ctx) ? 'shared' : null) }],
    },
  });
}
await bundle.close();

for (const project of ['tsconfig.build.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', project, '--emitDeclarationOnly'], { stdio: 'inherit' });
}
// passport-oauth2 is CommonJS (`export =`): a default import of it in the CommonJS declarations needs
// the user's `esModuleInterop`; `import X = require()` needs nothing (and a named import, as
// strategy.d.ts has, needs nothing either).
for (const file of ['dist/cjs/strategy/options.d.ts']) {
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(
    /^import (type )?OAuth2Strategy from 'passport-oauth2';$/m,
    "import $1OAuth2Strategy = require('passport-oauth2');",
  );
  if (fixed === text) throw new Error(`build: ${file} no longer imports passport-oauth2 as expected`);
  writeFileSync(file, fixed);
}
for (const file of ['dist/cjs/strategy/strategy.d.ts']) {
  if (/^import (type )?\w+ from 'passport-oauth2';$/m.test(readFileSync(file, 'utf8'))) {
    throw new Error(`build: ${file} imports passport-oauth2 by default, which needs esModuleInterop`);
  }
}
writeFileSync('dist/esm/package.json', '{ "type": "module" }\n');
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
// The emulator's package, on the contract just built (its declarations import passport-kudos/contract).
execFileSync(process.execPath, ['packages/kudos-emulator/build.mjs'], { stdio: 'inherit' });
