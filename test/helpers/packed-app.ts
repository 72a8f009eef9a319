import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs a command to its end and answers its standard output (it throws on a non-zero exit). */
export const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });

/**
 * The compiler options of a user's app at its strictest: NodeNext resolution (what `exports`
 * needs), `strict`, and the package's own types checked (`skipLibCheck: false`).
 */
export const STRICT_APP_COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  skipLibCheck: false,
} as const;

/** A fresh ES module app outside the repository with the packed tarball and `dependencies` installed. */
export interface PackedApp {
  dir: string;
  remove(): void;
}

/** The workspace's four packages, each packed from its folder as `npm publish` would. */
const PACKAGES = ['packages/kudos-core', '.', 'packages/kudos-payments', 'packages/kudos-emulator'];

/** Packs the package in `folder` into `work`; answers the tarball's path. */
function pack(folder: string, work: string): string {
  // npm test built dist/ already, and `prepack` would rebuild it (emptying it first) under the tests
  // running beside this one; npm runs it even with --ignore-scripts, so the build is told to keep the
  // one there (KUDOS_PACK_BUILT). scripts/check-package.mjs packs with a fresh build, after them.
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
      cwd: join(process.cwd(), folder),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 240_000,
      env: { ...process.env, KUDOS_PACK_BUILT: '1' },
    }),
  );
  return join(work, packed.filename);
}

/**
 * Packs both packages (passport-kudos and kudos-emulator) and installs them from their tarballs, with
 * `dependencies`, into a new app: as a user installs them from npm.
 */
export function packedApp(name: string, dependencies: string[]): PackedApp {
  const work = mkdtempSync(join(tmpdir(), `passport-kudos-${name}-`));
  const tarballs = PACKAGES.map((folder) => pack(folder, work));
  const dir = join(work, 'app');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs, ...dependencies], dir);
  return { dir, remove: () => rmSync(work, { recursive: true, force: true }) };
}
