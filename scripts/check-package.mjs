// Checks the workspace's four packages as users receive them: packs each tarball (from no dist/, so
// that `prepack` must build it, as from a fresh clone), runs publint and arethetypeswrong on each,
// checks what each holds, then installs them from their tarballs in empty projects, each package
// alone (with kudos-core, which it depends on) and all together:
// - passport-kudos gives KudosStrategy with no payments code and no payments package installed;
// - kudos-payments makes an order with no Passport package installed;
// - kudos-emulator installs neither Passport nor the payments, and its command starts;
// - together: every entry point loads through require() and import, one kudos-core is installed,
//   and the payments' errors are instances of passport-kudos's KudosError.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryPointsOf, manifestOf, PACKAGES } from './workspace.mjs';

const bin = (name) => join(process.cwd(), 'node_modules', '.bin', name);
/** passport-kudos unpacked, in bytes, when it held the payments too (0.1.0 before the split, #69). */
const BEFORE_SPLIT_BYTES = 1_145_190;
const manifest = (name) => manifestOf(PACKAGES[name]);
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
  console.log(
    `packed ${packed.filename}: ${packed.size} bytes, ${packed.unpackedSize} unpacked, ${packed.entryCount} files`,
  );
  const tarball = join(work, packed.filename);
  run(bin('publint'), ['run', tarball, '--strict', '--level', 'warning']);
  // Every resolution TypeScript has, node10 (its old default) included: typesVersions maps the subpaths.
  run(bin('attw'), [tarball]);
  console.log(`${packed.name}: publint ok, arethetypeswrong ok`);
  return { ...packed, tarball };
}

/** The files of a tarball whose path matches `pattern`. */
const filesMatching = (packed, pattern) =>
  packed.files.map((f) => f.path).filter((path) => pattern.test(path));

/** A fresh project in `name` with `specs` installed (tarballs or registry names). */
function install(name, specs) {
  const app = join(work, name);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), `{ "name": "${name}", "private": true }\n`);
  // No --offline: `npm ci` stores tarballs but not the metadata an offline install needs, so an
  // offline install works only where an earlier online install warmed the cache. --prefer-offline
  // uses the cache when it can and the registry otherwise, so it works with an empty cache too.
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], app);
  return app;
}

/** What `node -e code` prints in `app` (CommonJS). */
const node = (app, code) => run(process.execPath, ['-e', code], app).trim();
const installed = (app, name) => existsSync(join(app, 'node_modules', name, 'package.json'));

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
      if (/authURL:\s+(\S+)/.test(text)) child.kill('SIGTERM');
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

/** What each tarball holds: passport-kudos no payments or emulator file and no bin, well under its size before; the emulator its bin. */
function checkContents(packed) {
  const signIn = packed['passport-kudos'];
  const payments = filesMatching(
    signIn,
    /webhook|payment|receiver|sqlite|order|dedupe|emulator|(^|\/)cli\.js$/,
  );
  if (payments.length > 0)
    throw new Error(`passport-kudos's tarball holds payments or emulator files: ${payments.join(', ')}`);
  if ('bin' in manifest('passport-kudos')) throw new Error("passport-kudos's package.json has a bin");
  const share = signIn.unpackedSize / BEFORE_SPLIT_BYTES;
  const percent = `${(share * 100).toFixed(0)}%`;
  if (share >= 0.5)
    throw new Error(
      `passport-kudos unpacks to ${signIn.unpackedSize} bytes, ${percent} of ${BEFORE_SPLIT_BYTES}`,
    );
  console.log(
    `passport-kudos: no payments or emulator file, no bin; ${signIn.unpackedSize} bytes unpacked, ${percent} of the ${BEFORE_SPLIT_BYTES} before the split`,
  );
  for (const path of Object.values(manifest('kudos-emulator').bin ?? {})) {
    if (!packed['kudos-emulator'].files.some((f) => f.path === path.replace(/^\.\//, '')))
      throw new Error(`kudos-emulator's tarball has no ${path}, its bin`);
  }
}

/** The packages of `names` that `app` has installed (none is expected). */
const installedOf = (app, names) => names.filter((name) => installed(app, name));

/** Sign-in alone: KudosStrategy from the tarball, and no payments package installed. */
function checkSignInAlone(tarball) {
  const app = install('sign-in-app', [tarball('passport-kudos'), tarball('kudos-core'), 'passport']);
  const strategy = node(
    app,
    `const { KudosStrategy } = require('passport-kudos');
     const s = new KudosStrategy({ clientID: 'app', clientSecret: 'secret', callbackURL: '/cb', authURL: 'http://127.0.0.1:9', baseURL: 'http://127.0.0.1:9/api' }, () => {});
     console.log(s.name, Object.getPrototypeOf(KudosStrategy).name);`,
  );
  if (strategy !== 'kudos OAuth2Strategy')
    throw new Error(`require('passport-kudos') in a sign-in app: ${strategy}`);
  if (installed(app, 'kudos-payments')) throw new Error('installing passport-kudos installed kudos-payments');
  console.log(
    'passport-kudos alone: KudosStrategy extends the OAuth2Strategy of passport-oauth2; no kudos-payments installed',
  );
}

/** Payments alone: kudosPayments() makes an order, and no Passport package is installed. */
function checkPaymentsAlone(tarball) {
  const app = install('shop-app', [tarball('kudos-payments'), tarball('kudos-core')]);
  const passports = installedOf(app, ['passport', 'passport-oauth2', 'passport-strategy', 'passport-kudos']);
  if (passports.length > 0) throw new Error(`installing kudos-payments installed ${passports.join(', ')}`);
  const order = node(
    app,
    `const { kudosPayments } = require('kudos-payments');
     const payments = kudosPayments({ secret: 'at-least-16-characters', authURL: 'http://127.0.0.1:9',
       baseURL: 'http://127.0.0.1:9/api', wallet: 'kudos10w0466xcvg0sgfhynvj5nlcdzhqzrnc4gkegml',
       shopUser: 'shop', agent: 'shop-agent', onPaid: () => undefined });
     payments.createOrder({ amount: '2', redirectURI: 'http://127.0.0.1:9/paid', data: { item: 'mug' } })
       .then(({ order, url }) => console.log(order.data.item, new URL(url).searchParams.get('amount')));`,
  );
  if (order !== 'mug 2') throw new Error(`kudosPayments() in a shop without Passport: ${order}`);
  console.log('kudos-payments alone: kudosPayments() made an order; no Passport package installed');
}

/** The emulator alone: neither Passport nor the payments installed, and its command starts. */
async function checkEmulatorAlone(tarball) {
  const app = install('emulator-app', [tarball('kudos-emulator'), tarball('kudos-core')]);
  const extra = installedOf(app, ['passport', 'passport-oauth2', 'passport-kudos', 'kudos-payments']);
  if (extra.length > 0) throw new Error(`installing kudos-emulator installed ${extra.join(', ')}`);
  console.log(
    `kudos-emulator alone: no Passport, no payments; its command starts: ${await startsCommand(app)}`,
  );
}

/** All four together: one kudos-core, and the payments' errors are passport-kudos's KudosError. */
function checkOneHierarchy(app) {
  const copies = new Set(
    run('npm', ['ls', 'kudos-core', '--all', '--parseable'], app).trim().split('\n').filter(Boolean),
  );
  if (copies.size !== 1) throw new Error(`kudos-core is installed ${copies.size} times: ${[...copies]}`);
  const same = node(
    app,
    `const { KudosError } = require('passport-kudos');
     const { KudosNotificationError, parseKudosNotification } = require('kudos-payments');
     let thrown; try { parseKudosNotification({}); } catch (error) { thrown = error; }
     console.log(KudosNotificationError.prototype instanceof KudosError, thrown instanceof KudosError,
       require('kudos-payments').KudosError === KudosError);`,
  );
  if (same !== 'true true true')
    throw new Error(`the payments' errors and passport-kudos's KudosError: ${same}`);
  console.log("all four installed: one kudos-core; the payments' errors are passport-kudos's KudosError");
}

/** docs/observability.md's install line resolves as written (no ERESOLVE), the tarballs for the packages. */
function checkObservabilityLine(app, tarball) {
  const otelLine = /^npm install passport-kudos kudos-payments ((?:[a-z][a-z-]* )*@opentelemetry\/.+)$/m.exec(
    readFileSync('docs/observability.md', 'utf8'),
  )?.[1];
  if (!otelLine)
    throw new Error(
      'docs/observability.md has no "npm install passport-kudos kudos-payments @opentelemetry/..." line',
    );
  const tarballs = ['passport-kudos', 'kudos-payments', 'kudos-core'].map(tarball);
  run(
    'npm',
    [
      'install',
      '--dry-run',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...tarballs,
      ...otelLine.split(' '),
    ],
    app,
  );
  console.log(`docs/observability.md's install line resolves: ${otelLine}`);
}

/** Every entry point of every package loads through require() and import, with the same exports. */
function checkEntryPoints(app) {
  const entries = Object.entries(PACKAGES).flatMap(([name, dir]) =>
    entryPointsOf(dir).map((entry) => (entry === 'index' ? name : `${name}/${entry}`)),
  );
  for (const spec of entries) {
    const cjs = node(app, `console.log(Object.keys(require('${spec}')).length)`);
    const esm = run(
      process.execPath,
      ['--input-type=module', '-e', `const m = await import('${spec}'); console.log(Object.keys(m).length)`],
      app,
    ).trim();
    if (!(Number(cjs) > 0) || cjs !== esm)
      throw new Error(`${spec}: require gave ${cjs} exports, import ${esm}`);
    console.log(`${spec}: ${cjs} exports through require and import`);
  }
  // The root entry points never load optional parts (the emulator, Redis support, OpenTelemetry).
  for (const name of ['passport-kudos', 'kudos-payments']) {
    const loaded = node(
      app,
      `require('${name}'); console.log(Object.keys(require.cache).filter((f) => /[\\/](emulator|redis|otel|@opentelemetry)[\\/]/.test(f)).length)`,
    );
    if (loaded !== '0') throw new Error(`${name} loaded ${loaded} files of emulator/, redis/ or otel/`);
    console.log(`${name}: loads no emulator/, redis/ or otel/ code`);
  }
}

try {
  // kudos-core first: the others' declarations import its build.
  const packed = {};
  for (const name of Object.keys(PACKAGES)) packed[name] = pack(PACKAGES[name]);
  const tarball = (name) => packed[name].tarball;
  checkContents(packed);
  checkSignInAlone(tarball);
  checkPaymentsAlone(tarball);
  await checkEmulatorAlone(tarball);
  const app = install('full-app', [...Object.keys(PACKAGES).map(tarball), 'passport', '@opentelemetry/api']);
  checkOneHierarchy(app);
  checkObservabilityLine(app, tarball);
  checkEntryPoints(app);
} finally {
  rmSync(work, { recursive: true, force: true });
}
