// Checks both packages as users receive them: packs each tarball (from no dist/, so that `prepack`
// must build it, as from a fresh clone), checks what each holds (the library no emulator file and no
// `bin`; the emulator its command), runs publint and arethetypeswrong on each, installs both from
// their tarballs in an empty project, loads every entry point with both require() and import, and
// starts the installed `kudos-emulator` command.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = (name) => join(process.cwd(), 'node_modules', '.bin', name);
const EMULATOR_DIR = 'packages/kudos-emulator';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const emulatorPkg = JSON.parse(readFileSync(join(EMULATOR_DIR, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'passport-kudos-pack-'));
const run = (cmd, args, cwd = process.cwd()) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

/** Packs the package of `folder` from no dist/ (its prepack builds it); answers npm's account of it. */
function pack(folder) {
  rmSync(join(folder, 'dist'), { recursive: true, force: true });
  const output = run('npm', ['pack', '--json', '--pack-destination', work], folder);
  const [packed] = JSON.parse(output.slice(output.indexOf('[')));
  if (!packed.files.some((f) => f.path === 'dist/esm/index.js'))
    throw new Error(`npm pack of ${folder} gave no dist/: the prepack build did not run`);
  console.log(`packed ${packed.filename}: ${packed.size} bytes, ${packed.entryCount} files`);
  const tarball = join(work, packed.filename);
  run(bin('publint'), ['run', tarball, '--strict', '--level', 'warning']);
  // Every resolution TypeScript has, node10 (its old default) included: typesVersions maps the subpaths.
  run(bin('attw'), [tarball]);
  console.log(`${packed.name}: publint ok, arethetypeswrong ok`);
  return { ...packed, tarball };
}

/** The installed command starts: its banner names the address it listens on. */
function startsCommand(app) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(app, 'node_modules', '.bin', 'kudos-emulator'), '--port', '0'],
      {
        cwd: app,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let text = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const read = (chunk) => {
      text += chunk.toString();
      const url = /authURL:\s+(\S+)/.exec(text)?.[1];
      if (url) child.kill('SIGTERM');
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      const url = /authURL:\s+(\S+)/.exec(text)?.[1];
      if (url) resolve(url);
      else reject(new Error(`the installed kudos-emulator did not start:\n${text}`));
    });
  });
}

try {
  // The library first: its build is what the emulator's declarations import (passport-kudos/contract).
  const library = pack('.');
  const emulatorFiles = library.files.filter((f) => /emulator|(^|\/)cli\.js$/.test(f.path));
  if (emulatorFiles.length > 0)
    throw new Error(
      `${pkg.name}'s tarball holds emulator files: ${emulatorFiles.map((f) => f.path).join(', ')}`,
    );
  if ('bin' in pkg) throw new Error(`${pkg.name}'s package.json has a bin`);
  console.log(`${pkg.name}: no emulator file, no bin`);
  const emulator = pack(EMULATOR_DIR);
  for (const path of Object.values(emulatorPkg.bin ?? {})) {
    if (!emulator.files.some((f) => f.path === path.replace(/^\.\//, '')))
      throw new Error(`${emulatorPkg.name}'s tarball has no ${path}, its bin`);
  }

  // Install both tarballs in an empty project and load each entry point both ways.
  const app = join(work, 'app');
  run('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), '{ "name": "consumer", "private": true }\n');
  const tarball = library.tarball;
  // No --offline: `npm ci` stores tarballs but not the metadata an offline install needs, so an
  // offline install works only where an earlier online install warmed the cache. --prefer-offline
  // uses the cache when it can and the registry otherwise, so it works with an empty cache too.
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      tarball,
      emulator.tarball,
      'passport',
      '@opentelemetry/api',
    ],
    app,
  );
  console.log(`${emulatorPkg.name}'s command starts from the install: ${await startsCommand(app)}`);
  // docs/observability.md's install line resolves as written (no ERESOLVE), the tarball for the package.
  const otelLine = /^npm install passport-kudos ((?:[a-z][a-z-]* )*@opentelemetry\/.+)$/m.exec(
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
  const entries = [pkg, emulatorPkg].flatMap((p) =>
    Object.keys(p.exports)
      .filter((e) => e !== './package.json')
      .map((e) => (e === '.' ? p.name : `${p.name}/${e.slice(2)}`)),
  );
  for (const spec of entries) {
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
