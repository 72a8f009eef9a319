import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as contract from '../../packages/kudos-core/src/chain/index.js';
import { entryPointsOf, PACKAGES } from '../../scripts/workspace.mjs';

// Within each package, each name has one entry point, and kudos-core/chain holds the chain's side of
// the wire contract only: the shapes and words of transactions, notifications, the widget, addresses
// and the chain's search, no generic helper. (A name of kudos-core that passport-kudos and
// kudos-payments re-export, KudosError first, is one class: test/contract/packages.test.ts.)

/** Each package's folder and its entry points' declarations (dist/esm/<entry>/index.d.ts), by its exports. */
const ENTRIES = Object.entries(PACKAGES).map(([name, dir]) => ({
  name,
  dir,
  entries: entryPointsOf(dir).map((entry) => (entry === 'index' ? 'index' : `${entry}/index`)),
}));

/** Every name (value or type) each published entry point of a package exports, read from its .d.ts. */
function publishedNames(dir: string, entries: string[]): Map<string, string[]> {
  const files = entries.map((entry) => `${dir}/dist/esm/${entry}.d.ts`);
  const program = ts.createProgram(files, { strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const owners = new Map<string, string[]>();
  for (const [index, file] of files.entries()) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is missing: run npm run build`);
    const module = checker.getSymbolAtLocation(source);
    for (const symbol of module ? checker.getExportsOfModule(module) : []) {
      owners.set(symbol.name, [...(owners.get(symbol.name) ?? []), entries[index] as string]);
    }
  }
  return owners;
}

describe('the entry points', () => {
  // A package of one entry point (the emulator) cannot export a name twice.
  it.each(ENTRIES.filter(({ entries }) => entries.length > 1))(
    'of $name export each name from one entry point only',
    ({ dir, entries }) => {
      const shared = [...publishedNames(dir, entries)].filter(([, owners]) => owners.length > 1);
      expect(shared.map(([name, owners]) => `${name}: ${owners.join(', ')}`)).toEqual([]);
    },
  );

  it("kudos-core/chain exports the chain's side of the contract and nothing generic", () => {
    expect(Object.keys(contract).sort()).toEqual(
      [
        'CHAIN_EVENT_FILTER',
        'CHAIN_SEARCH_MAX_LIMIT',
        'LEGACY_PREFIX',
        'MAIN_PREFIX',
        'MAX_MEMO_BYTES',
        'MAX_REMARKS',
        'TOKEN_AMOUNT',
        'TX_STATUSES',
        'WIDGET_PARAMS',
        'accountKey',
        'chainSearchQuery',
        'checkAddress',
        'searchTotal',
        'spellAddress',
        'tokensToUnits',
        'transferFilter',
      ].sort(),
    );
    for (const generic of [
      'isRecord',
      'isObjectLike',
      'checkPositive',
      'readCapped',
      'BodyTooLargeError',
      'sameSecret',
      'withoutTrailingSlashes',
    ]) {
      expect(contract).not.toHaveProperty(generic);
    }
  });
});
