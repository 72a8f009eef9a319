import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as contract from '../../packages/kudos-core/src/chain/index.js';

// Each name has one entry point, and passport-kudos/contract holds the wire contract only: the
// service's endpoints, words, limits and shapes and the helpers that read them, no generic helper.

const ENTRIES = [
  'index',
  'testing/index',
  'webhook/index',
  'redis/index',
  'sqlite/index',
  'otel/index',
  'contract/index',
];

/** Every name (value or type) each published entry point exports, read from its .d.ts. */
function publishedNames(): Map<string, string[]> {
  const files = ENTRIES.map((entry) => `dist/esm/${entry}.d.ts`);
  const program = ts.createProgram(files, { strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const owners = new Map<string, string[]>();
  for (const [index, file] of files.entries()) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is missing: run npm run build`);
    const module = checker.getSymbolAtLocation(source);
    for (const symbol of module ? checker.getExportsOfModule(module) : []) {
      owners.set(symbol.name, [...(owners.get(symbol.name) ?? []), ENTRIES[index] as string]);
    }
  }
  return owners;
}

describe('the entry points', () => {
  it('export each name from one entry point only', () => {
    const shared = [...publishedNames()].filter(([, entries]) => entries.length > 1);
    expect(shared.map(([name, entries]) => `${name}: ${entries.join(', ')}`)).toEqual([]);
  });

  it('passport-kudos/contract exports the wire contract and nothing generic', () => {
    expect(Object.keys(contract).sort()).toEqual(
      [
        'ACCESS_TOKEN_LIFETIME_S',
        'CHAIN_EVENT_FILTER',
        'CHAIN_SEARCH_MAX_LIMIT',
        'DENOM',
        'KUDOS_API',
        'KUDOS_CHAIN',
        'KUDOS_PAGES',
        'KUDOS_SCOPE_DESCRIPTIONS',
        'LEGACY_PREFIX',
        'MAIN_PREFIX',
        'MAX_MEMO_BYTES',
        'MAX_REMARKS',
        'MIN_WEBHOOK_SECRET_LENGTH',
        'SAFE_ERROR_CODE',
        'SERVICE_ERRORS',
        'TOKEN_AMOUNT',
        'TX_STATUSES',
        'UNITS_PER_TOKEN',
        'WIDGET_PARAMS',
        'accountKey',
        'checkAddress',
        'redactWebhookURL',
        'spellAddress',
        'tokensToUnits',
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
