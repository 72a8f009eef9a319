// 5. Footprint: packed and installed size, and the number of runtime packages, of passport-kudos
// against passport-oauth2 alone. Installs from the npm registry into temporary folders.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function du(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? du(path) : statSync(path).size;
  }
  return total;
}

function install(spec) {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-footprint-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "name": "footprint", "private": true }');
    execFileSync('npm', ['install', '--omit=dev', '--omit=peer', '--no-audit', '--no-fund', spec], {
      cwd: dir,
      stdio: 'ignore',
    });
    const modules = join(dir, 'node_modules');
    const packages = readdirSync(modules)
      .filter((n) => !n.startsWith('.'))
      .flatMap((n) => (n.startsWith('@') ? readdirSync(join(modules, n)).map((m) => `${n}/${m}`) : [n]));
    return { installedBytes: du(modules), runtimePackages: packages.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {{ withInstall: boolean }} options */
export function benchFootprint({ withInstall }) {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-pack-'));
  try {
    // `npm run bench` built dist/ already; the build is told to keep it (KUDOS_PACK_BUILT), as
    // `prepack` would otherwise rebuild it under whatever else reads it (the tests beside a smoke run).
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
        encoding: 'utf8',
        env: { ...process.env, KUDOS_PACK_BUILT: '1' },
      }),
    );
    const result = { packedBytes: packed.size, unpackedBytes: packed.unpackedSize, files: packed.entryCount };
    if (!withInstall) return { passportKudos: result };
    return {
      passportKudos: { ...result, ...install(join(dir, packed.filename)) },
      passportOauth2: install('passport-oauth2'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
