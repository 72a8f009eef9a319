// The workspace's packages: where each lives, in the order they build (kudos-core first: the others'
// declarations import its build). The one list the build, the checks and their tests read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Each package's folder, by package name, in build order. */
export const PACKAGES = {
  'kudos-core': 'packages/kudos-core',
  'passport-kudos': '.',
  'kudos-payments': 'packages/kudos-payments',
  'kudos-emulator': 'packages/kudos-emulator',
};

/** The package.json of the package in `dir`. */
export function manifestOf(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

/** The entry points of the package in `dir`, as its exports name them: `index` for `.`, else the subpath (`redis`). */
export function entryPointsOf(dir) {
  return Object.keys(manifestOf(dir).exports ?? {})
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => (subpath === '.' ? 'index' : subpath.slice(2)));
}
