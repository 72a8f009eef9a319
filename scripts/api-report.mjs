// The API report of each package (api-extractor, from the built declarations): one file per entry
// point, `api/<entry>.api.md` in the package's folder, committed. `npm test` runs this as a check
// (`npm run check:api`): an export added, removed or changed without its report updated fails,
// naming the report, so every change of the public surface is one diff a reviewer reads.
// `npm run api` writes the reports anew (after `npm run build`).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { entryPointsOf, PACKAGES } from './workspace.mjs';

/** Each package's folder and its entry points (dist/esm/<entry>.d.ts), as its package.json exports them. */
export const API_ENTRIES = Object.fromEntries(
  Object.entries(PACKAGES).map(([name, dir]) => [name, { dir, entries: entryPointsOf(dir) }]),
);

const update = process.argv.includes('--update');
// `--package <name> --dir <folder>`: that package alone, read from another folder (its test checks
// the check on a copy with an export added).
const only = option('--package');
const elsewhere = option('--dir');
const temp = mkdtempSync(join(tmpdir(), 'passport-kudos-api-'));
const changed = [];
try {
  for (const [name, { dir: home, entries }] of Object.entries(API_ENTRIES)) {
    if (only && name !== only) continue;
    const dir = elsewhere ?? home;
    const projectFolder = resolve(dir);
    if (update) mkdirSync(join(projectFolder, 'api'), { recursive: true });
    for (const entry of entries) {
      const file = entry === 'index' ? 'index' : `${entry}/index`;
      const config = ExtractorConfig.prepare({
        configObject: {
          projectFolder,
          mainEntryPointFilePath: `<projectFolder>/dist/esm/${file}.d.ts`,
          bundledPackages: [],
          compiler: {
            overrideTsconfig: {
              compilerOptions: {
                strict: true,
                target: 'es2022',
                lib: ['es2022', 'dom'],
                module: 'nodenext',
                moduleResolution: 'nodenext',
                types: ['node'],
                skipLibCheck: true,
              },
              include: ['dist/esm'],
            },
          },
          apiReport: {
            enabled: true,
            reportFileName: entry,
            reportFolder: '<projectFolder>/api/',
            reportTempFolder: join(temp, name),
          },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          messages: {
            compilerMessageReporting: { default: { logLevel: 'warning' } },
            // Release tags and TSDoc style are not this project's conventions: the report lists what
            // is exported, and how each is typed.
            extractorMessageReporting: { default: { logLevel: 'none' } },
            tsdocMessageReporting: { default: { logLevel: 'none' } },
          },
        },
        configObjectFullPath: undefined,
        packageJsonFullPath: join(projectFolder, 'package.json'),
      });
      const result = Extractor.invoke(config, {
        localBuild: update,
        showVerboseMessages: false,
        messageCallback: quiet,
      });
      const report = join(dir, 'api', `${entry}.api.md`);
      if (!result.succeeded) changed.push(report);
      else if (result.apiReportChanged && update) console.log(`api-report: wrote ${report}`);
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}

/** The value after `flag` in the command line, if any. */
function option(flag) {
  const at = process.argv.indexOf(flag);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** api-extractor's own lines: only errors are printed (the check's verdict is below). */
function quiet(message) {
  if (message.logLevel !== 'error') message.handled = true;
}

if (changed.length > 0) {
  console.error(
    `check:api: the public API differs from its report in ${changed.join(', ')}: if the change is meant, run \`npm run build && npm run api\`, commit the reports, and name the change in the package's CHANGELOG.md`,
  );
  process.exit(1);
}
const count = Object.values(API_ENTRIES).reduce((sum, p) => sum + p.entries.length, 0);
console.log(
  `check:api: ${count} entry points of ${Object.keys(API_ENTRIES).length} packages match their reports`,
);
