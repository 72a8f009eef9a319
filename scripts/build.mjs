// Builds dist/esm (ES modules) and dist/cjs (CommonJS) from src with two tsc runs.
// Each folder gets a package.json naming its module type, so Node and TypeScript read
// both the .js files and their .d.ts files in the right format.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

rmSync('dist', { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
}
writeFileSync('dist/esm/package.json', '{ "type": "module" }\n');
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
for (const bin of ['dist/cjs/testing/cli.js']) {
  if (existsSync(bin)) chmodSync(bin, 0o755);
}
