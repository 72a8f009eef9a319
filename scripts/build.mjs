// Builds every package of the workspace, each into its own dist/ (scripts/build-package.mjs), in the
// order their declarations need: kudos-core first (the others import it), then passport-kudos (this
// folder), kudos-payments and kudos-emulator. `node scripts/build.mjs` builds passport-kudos alone
// when run by its `prepack` (npm pack of this folder).
import { readFileSync, writeFileSync } from 'node:fs';
import { buildPackage, entriesOf } from './build-package.mjs';
import { PACKAGES } from './workspace.mjs';

/** passport-kudos: the sign-in. */
async function buildSignIn() {
  const built = await buildPackage('.', entriesOf('.'));
  if (!built) return; // a finished build kept: its declarations are mended already
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
  // Each package's folder, in build order (the folder's own package.json names its entry points).
  for (const dir of Object.values(PACKAGES)) {
    if (dir === '.') await buildSignIn();
    else await buildPackage(dir, entriesOf(dir));
  }
}
