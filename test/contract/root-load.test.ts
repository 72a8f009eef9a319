import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// require('passport-kudos') loads what a sign-in needs and nothing more: the API client's calls (with
// their fetch transport) and refresh/revoke are loaded by their first call (bench/notes.md, cold
// start). Run in a fresh node on the built package, as an app loads it.

/** What a fresh node prints after running `code` in CommonJS from the package's root (self-reference). */
function runCommonJs(code: string): unknown {
  const out = execFileSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(out);
}

/**
 * The workspace's files in require.cache (the packages' dist/cjs, relative to the repository: kudos-core
 * is packages/kudos-core/...), shared chunks without their hash.
 */
const OWN_FILES = `
  const own = () => Object.keys(require.cache)
    .filter((file) => file.includes('/dist/cjs/') && !file.includes('/node_modules/'))
    .map((file) => require('node:path').relative(process.cwd(), file).replace(/-[\\w-]{8}\\.js$/, '.js'))
    .sort();`;

/** What require('passport-kudos') reads of the workspace: two files of its own, two of kudos-core. */
const SIGN_IN = [
  'dist/cjs/index.js',
  'dist/cjs/shared/shared.js',
  'packages/kudos-core/dist/cjs/index.js',
  'packages/kudos-core/dist/cjs/shared/shared.js',
];

const OPTIONS = `{ clientID: 'app', clientSecret: 'secret', callbackURL: 'http://127.0.0.1/cb',
  authURL: 'http://127.0.0.1:9', baseURL: 'http://127.0.0.1:9/api' }`;

describe("require('passport-kudos')", () => {
  it("reads two files of its own and two of kudos-core's (the entry points and their shared chunks)", () => {
    const files = runCommonJs(`${OWN_FILES}
      require('passport-kudos');
      process.stdout.write(JSON.stringify(own()));`);
    expect(files).toEqual(SIGN_IN);
  });

  it("never loads the chain's side of the contract, its bech32 library or any payments code", () => {
    const loaded = runCommonJs(`
      require('passport-kudos');
      process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((file) =>
        /kudos-payments|@scure|kudos-core\\/dist\\/cjs\\/chain/.test(file))));`);
    expect(loaded).toEqual([]);
  });

  it('loads the API client calls at their first call, which behaves as before', () => {
    const result = runCommonJs(`${OWN_FILES}
      const { KudosStrategy, createKudosClient, MemoryTokenStore } = require('passport-kudos');
      const strategy = new KudosStrategy(${OPTIONS}, () => {});
      let threw;
      try { createKudosClient({ strategy, tokens: new MemoryTokenStore(), timeoutMs: -1 }); }
      catch (error) { threw = error.message; }
      const client = createKudosClient({ strategy, tokens: new MemoryTokenStore() });
      const before = own();
      client.tokenSet('nobody').catch((error) => {
        process.stdout.write(JSON.stringify({ threw, before, after: own(), code: error.code }));
      });`);
    expect(result).toEqual({
      threw: expect.stringContaining('timeoutMs'),
      before: SIGN_IN,
      after: [...SIGN_IN, 'dist/cjs/shared/client-calls.js'].sort(),
      code: 'reauth_required',
    });
  });

  it('loads refresh and revoke at their first call, which behave as before', () => {
    const result = runCommonJs(`${OWN_FILES}
      const { KudosStrategy } = require('passport-kudos');
      const strategy = new KudosStrategy(${OPTIONS}, () => {});
      let sync;
      try { KudosStrategy.prototype.refresh.call({}, 'rt'); } catch (error) { sync = error.constructor.name; }
      Promise.allSettled([strategy.refresh(''), strategy.revoke('token')]).then(([refreshed, revoked]) => {
        process.stdout.write(JSON.stringify({ sync, files: own(),
          refresh: refreshed.reason.message, revoke: revoked.reason.code }));
      });`);
    expect(result).toEqual({
      sync: 'TypeError',
      files: [...SIGN_IN, 'dist/cjs/shared/refresh.js'].sort(),
      refresh: 'refresh() requires the refresh token, a non-empty string',
      revoke: 'revoke_url_missing',
    });
  });

  it("shares no sign-in code with kudos-payments: the receiver's entry never loads passport-oauth2", () => {
    const loaded = runCommonJs(`
      require('kudos-payments');
      process.stdout.write(JSON.stringify(Object.keys(require.cache).some((file) => file.includes('/passport-oauth2/'))));`);
    expect(loaded).toBe(false);
  });
});

describe('import() of the entry points', () => {
  // An ES module import of node:http builds its whole export facade, and reading one of its exports
  // loads Node's bundled undici: about 15 ms of an ES module app's start (bench section 2). The library
  // asks the process for node:http instead (process.getBuiltinModule), so no entry point loads it.
  it.each([
    'passport-kudos',
    'kudos-payments',
    'passport-kudos/redis',
    'kudos-payments/sqlite',
    'passport-kudos/otel',
    'kudos-payments/redis',
    'kudos-payments/otel',
    'kudos-payments/testing',
    'kudos-core',
    'kudos-core/chain',
    'kudos-core/redis',
    'kudos-core/otel',
  ])("%s never loads Node's bundled undici", (entry) => {
    const out = execFileSync(
      process.execPath,
      [
        '--no-warnings',
        '--input-type=module',
        '-e',
        `await import('${entry}');
         process.stdout.write(JSON.stringify(process.moduleLoadList.filter((name) => name.includes('undici'))));`,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(JSON.parse(out)).toEqual([]);
  });
});
