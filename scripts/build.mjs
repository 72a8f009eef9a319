// Builds dist/esm (ES modules) and dist/cjs (CommonJS). Code: one bundle per entry point with
// rolldown (shared code in chunks), because loading one file instead of fifteen halves the time
// `require('passport-kudos')` takes (see BENCHMARKS.md). Types: tsc declarations, one per source file.
// Each folder gets a package.json naming its module type, so Node and TypeScript read both right.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
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

/** The modules of the contract that only the payments' entry points read. */
const PAYMENTS_ONLY = /[\\/]protocol[\\/](address|widget|notification)\.ts$/;

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
    chunkFileNames: 'shared/[name]-[hash].js',
    // The base layer and the wire contract, which every entry point uses, in one chunk: loading
    // the main entry point reads two files, not six. Everything else stays with the entry point that
    // uses it; so do the parts of the contract only payments read (wallet addresses, whose bech32
    // library would cost every require() some 7 ms; the widget's parameters; the notification's
    // shape): a sign-in never loads them.
    codeSplitting: {
      groups: [
        {
          debugName: 'shared',
          name: (id) =>
            /[\\/]src[\\/](base|protocol)[\\/]/.test(id) && !PAYMENTS_ONLY.test(id) ? 'shared' : null,
        },
      ],
    },
  });
}
await bundle.close();

for (const project of ['tsconfig.build.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', project, '--emitDeclarationOnly'], { stdio: 'inherit' });
}
// passport-oauth2 is CommonJS (`export =`): a default import of it in the CommonJS declarations needs
// the user's `esModuleInterop`; `import X = require()` needs nothing.
for (const file of ['dist/cjs/strategy/strategy.d.ts', 'dist/cjs/strategy/options.d.ts']) {
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(
    /^import (type )?OAuth2Strategy from 'passport-oauth2';$/m,
    "import $1OAuth2Strategy = require('passport-oauth2');",
  );
  if (fixed === text) throw new Error(`build: ${file} no longer imports passport-oauth2 as expected`);
  writeFileSync(file, fixed);
}
writeFileSync('dist/esm/package.json', '{ "type": "module" }\n');
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
// The emulator's package, on the contract just built (its declarations import passport-kudos/contract).
execFileSync(process.execPath, ['packages/kudos-emulator/build.mjs'], { stdio: 'inherit' });
