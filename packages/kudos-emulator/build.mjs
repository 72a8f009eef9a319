// Builds dist/esm (ES modules) and dist/cjs (CommonJS): one bundle per entry point with rolldown
// (the package's module and the `kudos-emulator` command), types with tsc. The wire contract stays
// an import of passport-kudos/contract (a peer dependency): one copy of it in an app, the library's.
// Run from this folder; passport-kudos must be built first (its declarations are the contract's types).
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

process.chdir(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

// A tarball packed by the tests while other tests read dist/ (npm runs prepack even with
// --ignore-scripts): keep a finished build, as the library's build does.
if (process.env.KUDOS_PACK_BUILT === '1' && existsSync('dist/cjs/package.json')) process.exit(0);

const external = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), /^passport-kudos(\/|$)/];
rmSync('dist', { recursive: true, force: true });
const bundle = await rolldown({
  input: { index: 'src/index.ts', cli: 'src/cli.ts' },
  platform: 'node',
  external,
  logLevel: 'warn',
});
for (const [dir, format] of [
  ['dist/esm', 'esm'],
  ['dist/cjs', 'cjs'],
]) {
  await bundle.write({ dir, format, entryFileNames: '[name].js', chunkFileNames: 'shared/[name]-[hash].js' });
}
await bundle.close();
for (const project of ['tsconfig.build.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
}
writeFileSync('dist/esm/package.json', '{ "type": "module" }\n');
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
