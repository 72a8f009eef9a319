import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedApp, packedApp, run, STRICT_APP_COMPILER_OPTIONS } from '../helpers/packed-app.js';

// The published declaration files, as a user's compiler sees them: the packed tarball installed in a
// fresh project with the newest TypeScript (7) and the oldest 5.x this package supports (5.6: older ones cannot read today's @types/node), each
// entry point imported alone from ESM and from CommonJS, `strict`, `skipLibCheck: false`, and no
// `types` setting (TypeScript 7 then includes no @types package by default).
const ENTRY_POINTS = [
  'passport-kudos',
  'kudos-payments',
  'passport-kudos/redis',
  'kudos-payments/sqlite',
  'kudos-payments/testing',
  'passport-kudos/otel',
  'kudos-payments/redis',
  'kudos-payments/otel',
  'kudos-core',
  'kudos-core/chain',
  'kudos-core/redis',
  'kudos-core/otel',
  'kudos-emulator',
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
      '@opentelemetry/api',
    ]);
    app = packed.dir;
  }, 300_000);
  afterAll(() => packed.remove());

  // One program per compiler holds every entry point from both module systems (a tsc per entry and
  // format took 35 s). What one file's imports could lend another in a shared program is Node's
  // types: every entry point's declarations load them themselves (checked below), so each still
  // compiles when it is the only one a user imports.
  it.each(COMPILERS)(
    'every entry point, from ESM and from CommonJS, under %s',
    (_name, pkg) => {
      const files = ENTRY_POINTS.flatMap((entry) => {
        const base = entry.replaceAll('/', '-');
        writeFileSync(
          join(app, `esm-${base}.ts`),
          `import * as entry from '${entry}';\nexport type Everything = typeof entry;\n`,
        );
        writeFileSync(
          join(app, `cjs-${base}.cts`),
          `import entry = require('${entry}');\nexport type Everything = typeof entry;\n`,
        );
        return [`esm-${base}.ts`, `cjs-${base}.cts`];
      });
      writeFileSync(
        join(app, `tsconfig.${pkg}.json`),
        JSON.stringify({ compilerOptions: { ...STRICT_APP_COMPILER_OPTIONS, noEmit: true }, files }),
      );
      const tsc = join(app, 'node_modules', pkg, 'bin', 'tsc');
      let output = '';
      try {
        output = run(process.execPath, [tsc, '-p', `tsconfig.${pkg}.json`], app);
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output).toBe('');
    },
    120_000,
  );

  /** The output of `tsc` with `args` in the app ('' when it compiled). */
  function tsc(pkg: string, args: string[]): string {
    try {
      return run(process.execPath, [join(app, 'node_modules', pkg, 'bin', 'tsc'), ...args], app);
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  }

  it('every entry point under moduleResolution node (node10, TypeScript 5.x) without esModuleInterop', () => {
    const files = ENTRY_POINTS.map((entry) => {
      const file = `node10-${entry.replaceAll('/', '-')}.ts`;
      writeFileSync(
        join(app, file),
        `import entry = require('${entry}');\nexport type Everything = typeof entry;\n`,
      );
      return file;
    });
    writeFileSync(
      join(app, 'tsconfig.node10.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          moduleResolution: 'node10',
          esModuleInterop: false,
          strict: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files,
      }),
    );
    expect(tsc('typescript56', ['-p', 'tsconfig.node10.json'])).toBe('');
  }, 120_000);

  it.each(COMPILERS)(
    'a JavaScript app checked with tsc --allowJs --checkJs and no tsconfig, under %s',
    (_name, pkg) => {
      writeFileSync(
        join(app, 'checked.cjs'),
        [
          "const { KudosStrategy } = require('passport-kudos');",
          "const { kudosWebhook } = require('kudos-payments');",
          "new KudosStrategy({ clientID: 'id', clientSecret: 'secret', callbackURL: '/cb', authURL: 'http://127.0.0.1:4000', baseURL: 'http://127.0.0.1:4000/api' }, (_a, _r, profile, done) => done(null, profile));",
          "kudosWebhook({ secret: 'a-secret-of-sixteen+', onNotification: () => undefined });",
          '',
        ].join('\n'),
      );
      expect(tsc(pkg, ['--allowJs', '--checkJs', '--noEmit', '--skipLibCheck', 'false', 'checked.cjs'])).toBe(
        '',
      );
    },
    120_000,
  );

  it.each(COMPILERS)(
    'a strict app that leaves out an option is told which one, under %s',
    (_name, pkg) => {
      writeFileSync(
        join(app, 'missing-option.ts'),
        [
          "import { KudosStrategy } from 'passport-kudos';",
          "const options = { clientID: 'id', callbackURL: '/cb', authURL: 'http://127.0.0.1:4000', baseURL: 'http://127.0.0.1:4000/api' };",
          'export const strategy = new KudosStrategy(options, (_a: string, _r: string, profile, done) => done(null, profile));',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(app, `tsconfig.missing-${pkg}.json`),
        JSON.stringify({
          compilerOptions: { ...STRICT_APP_COMPILER_OPTIONS, noEmit: true },
          files: ['missing-option.ts'],
        }),
      );
      const output = tsc(pkg, ['-p', `tsconfig.missing-${pkg}.json`]);
      expect(output).toMatch(/Property 'clientSecret' is missing/);
      expect(output).not.toContain('missing the following properties'); // that one, not passReqToCallback too
    },
    120_000,
  );

  it.each(ENTRY_POINTS)("%s: its declarations load Node's types themselves (ESM and CommonJS)", (entry) => {
    const [name, sub = ''] = entry.split('/') as [string, string?];
    for (const flavour of ['esm', 'cjs']) {
      const dts = readFileSync(join(app, 'node_modules', name, 'dist', flavour, sub, 'index.d.ts'), 'utf8');
      expect(dts).toMatch(/^(?:\/\/[^\n]*\n|\/\*[\s\S]*?\*\/\s*)*\/\/\/ <reference types="node"/);
    }
  });
});
