import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The published declaration files, as a user's compiler sees them: the packed tarball installed in a
// fresh project with the newest TypeScript (7) and the oldest 5.x this package supports (5.6: older ones cannot read today's @types/node), each
// entry point imported alone from ESM and from CommonJS, `strict`, `skipLibCheck: false`, and no
// `types` setting (TypeScript 7 then includes no @types package by default).
const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });

const ENTRY_POINTS = [
  'passport-kudos',
  'passport-kudos/webhook',
  'passport-kudos/redis',
  'passport-kudos/testing',
];
const COMPILERS = [
  ['TypeScript 7', 'typescript'],
  ['TypeScript 5.6', 'typescript56'],
] as const;

describe('the published types compile on their own (TypeScript 7 and 5.6, no "types" setting)', () => {
  let work: string;
  let app: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'passport-kudos-types-'));
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], process.cwd()));
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'types-app', private: true, type: 'module' }),
    );
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        join(work, packed.filename),
        'typescript@^7',
        'typescript56@npm:typescript@~5.6',
        'passport',
        'express@^5',
        '@types/node',
        '@types/express',
        '@types/passport-oauth2',
      ],
      app,
    );
  }, 300_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const cases = ENTRY_POINTS.flatMap((entry) =>
    COMPILERS.flatMap(([name, pkg]) =>
      (['esm', 'cjs'] as const).map((flavour) => ({ entry, name, pkg, flavour })),
    ),
  );

  it.each(cases)(
    '$entry from $flavour under $name',
    ({ entry, pkg, flavour }) => {
      const base = `${flavour}-${entry.replaceAll('/', '-')}`;
      const file = flavour === 'esm' ? `${base}.ts` : `${base}.cts`;
      writeFileSync(
        join(app, file),
        flavour === 'esm'
          ? `import * as entry from '${entry}';\nexport type Everything = typeof entry;\n`
          : `import entry = require('${entry}');\nexport type Everything = typeof entry;\n`,
      );
      writeFileSync(
        join(app, `tsconfig.${base}.json`),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: false,
            noEmit: true,
          },
          files: [file],
        }),
      );
      const tsc = join(app, 'node_modules', pkg, 'bin', 'tsc');
      let output = '';
      try {
        output = run(process.execPath, [tsc, '-p', `tsconfig.${base}.json`], app);
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output).toBe('');
    },
    60_000,
  );
});
