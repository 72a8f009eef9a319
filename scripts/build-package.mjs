// Builds one package of the workspace into its dist/esm (ES modules) and dist/cjs (CommonJS). Code:
// one bundle per entry point with rolldown (shared code in chunks), because loading one file instead
// of fifteen halves the time a require() takes (see BENCHMARKS.md). Types: tsc declarations, one per
// source file, from the package's tsconfig.build.json and tsconfig.cjs.json. The other Kudos
// packages, dependencies and peers stay imports: one copy of kudos-core in an app.
// Each dist folder gets a package.json naming its module type, so Node and TypeScript read both right.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';
import { entryPointsOf, manifestOf } from './workspace.mjs';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

/** A bare specifier and its subpaths (`redis` and `redis/...`). */
const withSubpaths = (name) => new RegExp(`^${name.replace(/[/.]/g, '\\$&')}(/|$)`);

/**
 * The entry points of the package in `dir`, as rolldown takes them: each export of its package.json
 * (scripts/workspace.mjs) built from `src/<entry>/index.ts` into `<entry>/index.js` of each dist (`index`
 * for `.`), and a package with a `bin` gets its command's module, `src/cli.ts` (the bin file, kept
 * in git, imports `dist/esm/cli.js`).
 */
export function entriesOf(dir) {
  const input = {};
  for (const entry of entryPointsOf(dir)) {
    const name = entry === 'index' ? 'index' : `${entry}/index`;
    input[name] = `src/${name}.ts`;
  }
  if (manifestOf(dir).bin) input.cli = 'src/cli.ts';
  return input;
}

/**
 * What the package's root entry point (`index`) loads at once, directly or not, read from rolldown's
 * module graph: what `require()` of the package compiles. Its dynamic imports (the API client's
 * calls, refresh) are left out: they are loaded when first used.
 */
function rootGraph(root) {
  let modules;
  return (id, ctx) => {
    if (!modules) {
      modules = new Set();
      const visit = (module) => {
        if (modules.has(module)) return;
        modules.add(module);
        for (const next of ctx.getModuleInfo(module)?.importedIds ?? []) visit(next);
      };
      visit(root);
    }
    return modules.has(id);
  };
}

/**
 * Builds the package in `dir`. `input` names each entry point's source (relative to `dir`), as
 * rolldown takes it. Answers whether it built (false: a finished build was kept, see below).
 */
export async function buildPackage(dir, input) {
  // A tarball packed by the tests (test/helpers/packed-app.ts) while other tests read dist/: npm runs
  // `prepack` even with --ignore-scripts, and a rebuild empties dist/ under them. npm test built it.
  if (process.env.KUDOS_PACK_BUILT === '1' && existsSync(join(dir, 'dist/cjs/package.json'))) return false;
  const pkg = manifestOf(dir);
  const external = [
    ...builtinModules,
    ...builtinModules.map((m) => `node:${m}`),
    ...[...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})].map(withSubpaths),
  ];
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  const entries = Object.fromEntries(Object.entries(input).map(([name, file]) => [name, resolve(dir, file)]));
  const rootLoads = rootGraph(entries.index);
  /** Whether the root loads `id` and something else imports it too (another entry point, a lazy part). */
  const sharedWithRoot = (id, ctx) => {
    if (!rootLoads(id, ctx)) return false;
    const info = ctx.getModuleInfo(id);
    return [...(info?.importers ?? []), ...(info?.dynamicImporters ?? [])].some((by) => !rootLoads(by, ctx));
  };
  const bundle = await rolldown({ input: entries, platform: 'node', external, logLevel: 'warn' });
  for (const format of ['esm', 'cjs']) {
    await bundle.write({
      dir: join(dir, 'dist', format),
      format,
      entryFileNames: '[name].js',
      // The JavaScript without its doc comments (the declarations keep them, and so does src/): they
      // were a third of what require('passport-kudos') compiles. Annotations that bundlers read stay.
      comments: { legal: true, annotation: true, jsdoc: false },
      chunkFileNames: 'shared/[name]-[hash].js',
      // What the root entry point loads that other entry points or its lazy parts use too, in one
      // chunk: loading the main entry point reads two files of the package. The rest stays with what
      // uses it (what the root loads when first used, what only another entry point needs).
      codeSplitting: {
        groups: [{ debugName: 'shared', name: (id, ctx) => (sharedWithRoot(id, ctx) ? 'shared' : null) }],
      },
    });
  }
  await bundle.close();
  for (const project of ['tsconfig.build.json', 'tsconfig.cjs.json']) {
    execFileSync(process.execPath, [tsc, '-p', join(dir, project), '--emitDeclarationOnly'], {
      stdio: 'inherit',
    });
  }
  writeFileSync(join(dir, 'dist/esm/package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
  return true;
}

// Run as a command (a package's `build` and `prepack`: `node ../../scripts/build-package.mjs`), it
// builds the package of the folder it runs in.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildPackage('.', entriesOf('.'));
}
