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

// ARCHITECTURE.md's claims hold: the layers it draws are what check-imports enforces, a violation
// fails it, and every file it names exists.
const architecture = readFileSync('ARCHITECTURE.md', 'utf8');
const checker = resolve('scripts/check-imports.mjs');
const EMULATOR_SRC = 'packages/kudos-emulator/src';

describe('the layers', () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs check-imports on a copy of src/ and of the emulator's src/ with `line` appended to `file`. */
  function checkWith(file: string, line: string): { status: number | null; stderr: string } {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-layers-'));
    copies.push(dir);
    cpSync('src', join(dir, 'src'), { recursive: true });
    cpSync(EMULATOR_SRC, join(dir, EMULATOR_SRC), { recursive: true });
    appendFileSync(join(dir, file.startsWith('packages/') ? '' : 'src', file), `\n${line}\n`);
    const run = spawnSync(process.execPath, [checker], { cwd: dir, encoding: 'utf8' });
    return { status: run.status, stderr: run.stderr };
  }

  it('hold in the repository', () => {
    expect(execFileSync(process.execPath, [checker], { encoding: 'utf8' })).toMatch(/no cycles/);
  });

  it.each([
    ['base/guards.ts', "import type { KudosStrategy } from '../strategy/strategy.js';", 'strategy'],
    ['protocol/limits.ts', "import type { KudosTokenSet } from '../tokens/token-set.js';", 'tokens'],
    ['tokens/lock.ts', "import type { KudosNotification } from '../webhook/types.js';", 'webhook'],
    ['webhook/types.ts', "export type { KudosTokenSet } from '../tokens/token-set.js';", 'tokens'],
  ])('refuse %s importing upwards or sideways', (file, line, room) => {
    const { status, stderr } = checkWith(file, line);
    expect(status).toBe(1);
    expect(stderr).toContain(`src/${file}`);
    expect(stderr).toContain(`(${room})`);
  });

  it.each([
    [
      `${EMULATOR_SRC}/model/ids.ts`,
      "import type { KudosNotification } from '../../../../src/webhook/types.js';",
      'outside its package',
    ],
    [
      `${EMULATOR_SRC}/model/ids.ts`,
      "import type { KudosNotification } from 'kudos-payments';",
      'node: modules and',
    ],
    ['index.ts', "export { startKudosEmulator } from 'kudos-emulator';", 'never imports the emulator'],
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
    expect(stderr).toContain("a room above it (the emulator's ranks)");
  });

  it('refuse a cycle inside a layer', () => {
    // redact.ts imports url-path.ts already.
    const { status, stderr } = checkWith(
      'base/url-path.ts',
      "import { redactWebhookURL } from './redact.js';",
    );
    expect(status).toBe(1);
    expect(stderr).toContain('import cycle');
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
    for (const folder of folders('src')) {
      expect(architecture, folder).toContain(`\`${folder}/\``);
    }
  });

  it('names only files that exist', () => {
    const named = [
      ...architecture.matchAll(
        /`((?:packages\/kudos-emulator\/)?(?:src|test)\/[\w/.-]+\.ts|docs\/[\w.-]+\.md|scripts\/[\w.-]+\.mjs|test\/[\w/.-]+\.ts)/g,
      ),
    ];
    expect(named.length).toBeGreaterThan(20);
    for (const [, path] of named) expect(existsSync(path as string), path).toBe(true);
  });
});
