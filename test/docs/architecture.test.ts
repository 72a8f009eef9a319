import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGES } from '../../scripts/workspace.mjs';

// ARCHITECTURE.md's claims hold: the layers it draws are what check-imports enforces, a violation
// fails it, and every file it names exists.
const architecture = readFileSync('ARCHITECTURE.md', 'utf8');
const checker = resolve('scripts/check-imports.mjs');
const EMULATOR_SRC = 'packages/kudos-emulator/src';
const PAYMENTS_SRC = 'packages/kudos-payments/src';
const CORE_SRC = 'packages/kudos-core/src';
/** Each package's folder: its src/ and package.json are what check-imports reads. */
const PACKAGE_DIRS = Object.values(PACKAGES);

describe('the layers', () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs check-imports on a copy of every package's src/ and package.json with `line` appended to `file`. */
  function checkWith(file: string, line: string): { status: number | null; stderr: string } {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-layers-'));
    copies.push(dir);
    for (const pkg of PACKAGE_DIRS) {
      cpSync(join(pkg, 'src'), join(dir, pkg, 'src'), { recursive: true });
      cpSync(join(pkg, 'package.json'), join(dir, pkg, 'package.json'));
    }
    appendFileSync(join(dir, file), `\n${line}\n`);
    const run = spawnSync(process.execPath, [checker], { cwd: dir, encoding: 'utf8' });
    return { status: run.status, stderr: run.stderr };
  }

  it('hold in the repository', () => {
    expect(execFileSync(process.execPath, [checker], { encoding: 'utf8' })).toMatch(/no cycle/);
  });

  it.each([
    [`${CORE_SRC}/base/guards.ts`, "import type { KudosProfile } from '../protocol/profile.js';", 'protocol'],
    ['src/tokens/lock.ts', "import type { KudosStrategy } from '../strategy/strategy.js';", 'strategy'],
    [`${PAYMENTS_SRC}/core/types.ts`, "export type { Ledger } from '../payments/ledger.js';", 'payments'],
    // A type-only import and a dynamic import() count as much as a static one.
    [`${PAYMENTS_SRC}/core/parse.ts`, "const late = () => import('../recovery/reconcile.js');", 'recovery'],
  ])('refuse %s importing upwards or sideways', (file, line, room) => {
    const { status, stderr } = checkWith(file, line);
    expect(status).toBe(1);
    expect(stderr).toContain(file);
    expect(stderr).toContain(`(${room})`);
  });

  it.each([
    [
      `${EMULATOR_SRC}/model/ids.ts`,
      "import type { KudosNotification } from '../../../kudos-payments/src/core/types.js';",
      'outside kudos-emulator',
    ],
    [
      `${EMULATOR_SRC}/model/ids.ts`,
      "import type { KudosNotification } from 'kudos-payments';",
      'never imports',
    ],
    [`${PAYMENTS_SRC}/index.ts`, "export type { Profile } from 'passport';", 'never imports passport'],
    [
      `${PAYMENTS_SRC}/index.ts`,
      "export { KudosStrategy } from 'passport-kudos';",
      'never imports passport-kudos',
    ],
    ['src/index.ts', "export { startKudosEmulator } from 'kudos-emulator';", 'never imports kudos-emulator'],
    [`${CORE_SRC}/index.ts`, "export * from 'left-pad';", 'does not declare'],
  ])('refuse %s crossing the package boundary: %s', (file, line, reason) => {
    const { status, stderr } = checkWith(file, line);
    expect(status).toBe(1);
    expect(stderr).toContain(file);
    expect(stderr).toContain(reason);
  });

  it.each([
    [`${EMULATOR_SRC}/state.ts`, "import type { Ctx } from './server/http.js';", 'state.ts imports'],
    [
      `${EMULATOR_SRC}/model/ids.ts`,
      "import type { WebhookSender } from '../webhook-sender.js';",
      'model/ids.ts imports',
    ],
    [
      `${EMULATOR_SRC}/server/http.ts`,
      "import type { Router } from '../routes/home.js';",
      'server/http.ts imports',
    ],
  ])('refuse the emulator’s %s importing a room above it', (file, line, what) => {
    const { status, stderr } = checkWith(file, line);
    expect(status).toBe(1);
    expect(stderr).toContain(what);
    expect(stderr).toContain("a room above it (kudos-emulator's ranks)");
  });

  it('refuse a cycle inside a layer', () => {
    // redact.ts imports url-path.ts already.
    const { status, stderr } = checkWith(
      `${CORE_SRC}/base/url-path.ts`,
      "import { redactWebhookURL } from './redact.js';",
    );
    expect(status).toBe(1);
    expect(stderr).toContain('import cycle');
  });

  it('refuse a cycle made by a dynamic import() and a type-only import', () => {
    // client.ts loads client-calls.ts with import(); a type import back closes a cycle.
    const { status, stderr } = checkWith(
      'src/tokens/client-types.ts',
      "import type { clientCalls } from './client-calls.js';",
    );
    expect(status).toBe(1);
    expect(stderr).toMatch(/import cycle: .*client-types\.ts/);
  });
});

describe('ARCHITECTURE.md', () => {
  it("names every folder of src/ in its table of layers (the emulator's own, in its package's ARCHITECTURE.md)", () => {
    const folders = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? [path, ...folders(path)] : [];
      });
    const emulatorReadme = readFileSync('packages/kudos-emulator/ARCHITECTURE.md', 'utf8');
    for (const folder of folders('packages/kudos-emulator/src')) {
      expect(emulatorReadme, folder).toContain(`\`${folder.slice('packages/kudos-emulator/src/'.length)}/`);
    }
    for (const folder of [...folders('src'), ...folders(CORE_SRC), ...folders(PAYMENTS_SRC)]) {
      expect(architecture, folder).toContain(`\`${folder}/\``);
    }
  });

  it('names only files that exist', () => {
    const named = [
      ...architecture.matchAll(
        /`((?:packages\/kudos-[a-z]+\/)?(?:src|test)\/[\w/.-]+\.ts|docs\/[\w.-]+\.md|scripts\/[\w.-]+\.mjs|test\/[\w/.-]+\.ts)/g,
      ),
    ];
    expect(named.length).toBeGreaterThan(20);
    for (const [, path] of named) expect(existsSync(path as string), path).toBe(true);
  });
});
