import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The README's Install, as a newcomer runs it before the packages are on the registry: its commands,
// as written, in a new folder, from a clone of this repository (the clone's URL made this checkout's
// path: the same commit, no network but the registry), installing both packages into a new app.

const readme = readFileSync('README.md', 'utf8');
const block = /```sh\n(git clone [\s\S]*?)```/.exec(readme)?.[1] ?? '';
const version = JSON.parse(readFileSync('package.json', 'utf8')).version as string;

describe("the README's Install from a clone", () => {
  const work = mkdtempSync(join(tmpdir(), 'kudos-install-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('names the tarballs of this version, `npm ci` before `npm pack`', () => {
    expect(block).toContain(`passport-kudos-${version}.tgz`);
    expect(block).toContain(`kudos-emulator-${version}.tgz`);
    expect(block.indexOf('npm ci')).toBeGreaterThan(-1);
    expect(block.indexOf('npm ci')).toBeLessThan(block.indexOf('npm pack'));
  });

  it('installs both packages into a new app, which loads them', () => {
    const script = block.replace(/https:\/\/github\.com\/passport-kudos\/passport-kudos\.git/, process.cwd());
    expect(script).not.toBe(block);
    execFileSync('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 420_000,
      // The registry's packages from the cache when it has them; the clone builds without the tests' own flags.
      env: { ...process.env, npm_config_prefer_offline: 'true', KUDOS_PACK_BUILT: '' },
    });
    const app = join(work, 'my-app');
    for (const name of ['passport-kudos', 'kudos-emulator']) {
      const installed = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8'));
      expect(installed.version).toBe(version);
    }
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    expect(manifest.dependencies['passport-kudos']).toContain(`passport-kudos-${version}.tgz`);
    expect(manifest.devDependencies['kudos-emulator']).toContain(`kudos-emulator-${version}.tgz`);
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        "console.log(typeof require('passport-kudos').KudosStrategy, typeof require('kudos-emulator').startKudosEmulator)",
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(loaded.trim()).toBe('function function');
    expect(existsSync(join(app, 'node_modules', '.bin', 'kudos-emulator'))).toBe(true);
  }, 480_000);
});
