// Checks the package as users receive it: packs the tarball (from no dist/, so that `prepack` must
// build it, as from a fresh clone), then runs publint and
// arethetypeswrong on it, and loads every entry point from an install of that tarball
// with both require() and import.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = (name) => join(process.cwd(), 'node_modules', '.bin', name);
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'passport-kudos-pack-'));
const run = (cmd, args, cwd = process.cwd()) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

try {
  // From a clone as it comes (no dist/): the tarball's build can only come from `prepack`.
  rmSync('dist', { recursive: true, force: true });
  const packOutput = run('npm', ['pack', '--json', '--pack-destination', work]);
  const [packed] = JSON.parse(packOutput.slice(packOutput.indexOf('[')));
  if (!packed.files.some((f) => f.path === 'dist/esm/index.js'))
    throw new Error('npm pack gave no dist/: the prepack build did not run');
  const tarball = join(work, packed.filename);
  console.log(`packed ${packed.filename}: ${packed.size} bytes, ${packed.entryCount} files`);

  run(bin('publint'), ['run', tarball, '--strict', '--level', 'warning']);
  console.log('publint: ok');
  // Every resolution TypeScript has, node10 (its old default) included: typesVersions maps the subpaths.
  run(bin('attw'), [tarball]);
  console.log('arethetypeswrong: ok');

  // Install the tarball in an empty project and load each entry point both ways.
  const app = join(work, 'app');
  run('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), '{ "name": "consumer", "private": true }\n');
  // No --offline: `npm ci` stores tarballs but not the metadata an offline install needs, so an
  // offline install works only where an earlier online install warmed the cache. --prefer-offline
  // uses the cache when it can and the registry otherwise, so it works with an empty cache too.
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, 'passport', '@opentelemetry/api'],
    app,
  );
  // docs/observability.md's install line resolves as written (no ERESOLVE), the tarball for the package.
  const otelLine = /^npm install passport-kudos (@opentelemetry\/.+)$/m.exec(
    readFileSync('docs/observability.md', 'utf8'),
  )?.[1];
  if (!otelLine)
    throw new Error('docs/observability.md has no "npm install passport-kudos @opentelemetry/..." line');
  run(
    'npm',
    ['install', '--dry-run', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...otelLine.split(' ')],
    app,
  );
  console.log(`docs/observability.md's install line resolves: ${otelLine}`);
  for (const entry of Object.keys(pkg.exports).filter((e) => e !== './package.json')) {
    const spec = entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`;
    const cjs = run(
      process.execPath,
      ['-e', `console.log(Object.keys(require('${spec}')).length)`],
      app,
    ).trim();
    const esm = run(
      process.execPath,
      ['--input-type=module', '-e', `const m = await import('${spec}'); console.log(Object.keys(m).length)`],
      app,
    ).trim();
    if (!(Number(cjs) > 0) || cjs !== esm)
      throw new Error(`${spec}: require gave ${cjs} exports, import ${esm}`);
    console.log(`${spec}: ${cjs} exports through require and import`);
  }
  // The root entry point must never load optional parts (the emulator, Redis support, OpenTelemetry).
  const loaded = run(
    process.execPath,
    [
      '-e',
      `require('${pkg.name}'); console.log(Object.keys(require.cache).filter((f) => /[\\/](emulator|redis|otel|@opentelemetry)[\\/]/.test(f)).length)`,
    ],
    app,
  ).trim();
  if (loaded !== '0') throw new Error(`${pkg.name} loaded ${loaded} files of emulator/, redis/ or otel/`);
  console.log(`${pkg.name}: loads no emulator/, redis/ or otel/ code`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
