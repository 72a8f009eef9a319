// Builds every package of the workspace, each into its own dist/ (scripts/build-package.mjs), in the
// order their declarations need: kudos-core first (the others import it), then passport-kudos (this
// folder), kudos-payments and kudos-emulator. `node scripts/build.mjs` builds passport-kudos alone
// when run by its `prepack` (npm pack of this folder).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildPackage } from './build-package.mjs';

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

/** passport-kudos: the sign-in. */
async function buildSignIn() {
  await buildPackage(
    '.',
    { index: 'src/index.ts', 'redis/index': 'src/redis/index.ts', 'otel/index': 'src/otel/index.ts' },
    {
      // What the root entry point loads that other entry points or its lazy parts use too (the token
      // set, the errors' wrappers), in one chunk: loading the main entry point reads two files. What
      // the root loads when first used (the API client's calls, refresh) stays apart: a sign-in
      // never loads it.
      codeSplitting: {
        groups: [{ debugName: 'shared', name: (id, ctx) => (sharedWithRoot(id, ctx) ? 'shared' : null) }],
      },
    },
  );
  // passport-oauth2 is CommonJS (`export =`): a default import of it in the CommonJS declarations
  // needs the user's `esModuleInterop`; `import X = require()` needs nothing (and a named import, as
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
}

if (process.env.npm_lifecycle_event === 'prepack') {
  await buildSignIn();
} else {
  await import('../packages/kudos-core/build.mjs');
  await buildSignIn();
  await import('../packages/kudos-payments/build.mjs');
  await import('../packages/kudos-emulator/build.mjs');
}
