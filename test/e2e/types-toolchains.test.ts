import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedApp, packedApp, run, STRICT_APP_COMPILER_OPTIONS } from '../helpers/packed-app.js';

// The published declaration files, as a user's compiler sees them: the packed tarball installed in a
// fresh project with the newest TypeScript (7) and the oldest 5.x this package supports (5.6: older ones cannot read today's @types/node), each
// entry point imported alone from ESM and from CommonJS, `strict`, `skipLibCheck: false`, and no
// `types` setting (TypeScript 7 then includes no @types package by default).
const ENTRY_POINTS = [
  'passport-kudos',
  'passport-kudos/webhook',
  'passport-kudos/redis',
  'passport-kudos/sqlite',
  'passport-kudos/testing',
];
const COMPILERS = [
  ['TypeScript 7', 'typescript'],
  ['TypeScript 5.6', 'typescript56'],
] as const;

describe('the published types compile on their own (TypeScript 7 and 5.6, no "types" setting)', () => {
  let packed: PackedApp;
  let app: string;

  beforeAll(() => {
    packed = packedApp('types-app', [
      'typescript@^7',
      'typescript56@npm:typescript@~5.6',
      'passport',
      'express@^5',
      '@types/node',
      '@types/express',
      '@types/passport-oauth2',
    ]);
    app = packed.dir;
  }, 300_000);
  afterAll(() => packed.remove());

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
          compilerOptions: { ...STRICT_APP_COMPILER_OPTIONS, noEmit: true },
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
