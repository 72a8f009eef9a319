import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { KUDOS_ERROR_CODES } from '../../packages/kudos-core/src/index.js';

// One name per thing in the published types: `receiver` is the receiver object, `wallet` the shop's
// wallet address(es), `maxBodyBytes` the body limit, `dedupeTtlMs` the dedupe TTL; the names they
// replaced are nowhere.

function declarations(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.d.ts'))
    .map((file) => join(dir, file));
}

/** Every published declaration of the workspace's packages. */
const ALL = [
  'dist/esm',
  ...['kudos-core', 'kudos-payments', 'kudos-emulator'].map((p) => `packages/${p}/dist/esm`),
].flatMap(declarations);
/** The payments' declarations. */
const WEBHOOK = declarations('packages/kudos-payments/dist/esm');

/** `name: type` of every property, parameter and field of the files, as written. */
function typedNames(files: readonly string[]): { file: string; name: string; type: string }[] {
  const found: { file: string; name: string; type: string }[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (
        (ts.isPropertySignature(node) || ts.isParameter(node) || ts.isPropertyDeclaration(node)) &&
        ts.isIdentifier(node.name) &&
        node.type
      ) {
        found.push({ file, name: node.name.text, type: node.type.getText(source) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('one name per thing in the published types', () => {
  it('has none of the names the renames replaced', () => {
    const old =
      /\b(KudosWebhookOptions|KudosWebhookStatus|KudosWebhookError(?!Handler)\w*|KudosWebhookAnswer\w*|not_to_receiver|retentionMs)\b/;
    const hits = ALL.filter((file) => old.test(readFileSync(file, 'utf8')));
    expect(hits).toEqual([]);
  });

  it('calls the receiver object, and only it, "receiver"', () => {
    const receivers = typedNames(WEBHOOK).filter(({ name }) => name === 'receiver');
    expect(receivers.length).toBeGreaterThan(0);
    for (const { file, type } of receivers)
      expect(type, file).toMatch(/^(KudosReceiver|KudosRecovery|ReceiverInternals)\b/);
  });

  it('calls the shop\'s wallet address(es) "wallet", and the accounts they name "wallets"', () => {
    const wallets = typedNames(WEBHOOK).filter(({ name }) => name === 'wallet' || name === 'wallets');
    expect(wallets.map(({ type }) => type).sort()).toEqual(
      expect.arrayContaining(['string | readonly string[]', 'ReadonlySet<string>']),
    );
    for (const { file, name, type } of wallets) {
      expect(type, `${file} ${name}`).toMatch(
        name === 'wallet' ? /^(string \| readonly string\[\]|unknown)$/ : /^ReadonlySet<string>$/,
      );
    }
  });

  it('has one name each for the body limit, the dedupe TTL and the handler time limit', () => {
    const names = new Set(typedNames(WEBHOOK).map(({ name }) => name));
    for (const one of ['maxBodyBytes', 'dedupeTtlMs', 'handlerTimeoutMs']) expect(names).toContain(one);
    expect(names).not.toContain('retentionMs');
    // Where a body is read, its limit is maxBodyBytes (a `limit` elsewhere counts listed records).
    const bodies = WEBHOOK.filter((file) => /(core\/body|receiver|adapters\/\w+|options)\.d\.ts$/.test(file));
    expect(bodies.length).toBeGreaterThan(4);
    expect(typedNames(bodies).filter(({ name }) => name === 'limit')).toEqual([]);
  });

  it('calls no payee "receiver": the payee of an output is its recipient', () => {
    // How a payee would be called a receiver: what receivers got, their addresses, one or several of them.
    const payee =
      /\b(?:receivers? (?:got|gets|get|paid)\b|receivers' addresses|(?:one|several) receivers?\b|a receiver, or)/i;
    const hits = ALL.filter((file) => payee.test(readFileSync(file, 'utf8')));
    expect(hits).toEqual([]);
    expect(readFileSync('packages/kudos-core/dist/esm/chain/transaction.d.ts', 'utf8')).toContain(
      'a recipient, or the agent',
    );
  });

  it("has no case twins in the error table (the service's own word stays in serviceCode)", () => {
    const spellings = new Map<string, Set<string>>();
    for (const { code } of KUDOS_ERROR_CODES) {
      const key = code.toLowerCase();
      spellings.set(key, (spellings.get(key) ?? new Set()).add(code));
    }
    expect([...spellings.values()].filter((set) => set.size > 1).map((set) => [...set])).toEqual([]);
  });

  it('has one code, in one class, for a store that failed, and one for a store that cannot be used', () => {
    const stores = KUDOS_ERROR_CODES.filter(({ code }) => /store|redis/.test(code)).map(
      ({ code, error, status }) => [code, error, status],
    );
    expect(stores).toEqual([
      ['store_unavailable', 'KudosError', 503],
      ['store_unusable', 'KudosError', 500],
    ]);
  });
});
