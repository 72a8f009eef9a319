import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KudosEmulator, startKudosEmulator } from '../../src/emulator/index.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { freePort } from '../helpers/free-port.js';

// A new user's first hour: the packed tarball installed into a fresh app outside the repository,
// the README's quick start (docs/snippets) compiled with strict TypeScript (NodeNext, skipLibCheck
// false) and run, in ESM TypeScript and in CommonJS, logging in over HTTP against the emulator.
const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });

describe('the README quick start in a fresh app that installs the packed tarball', () => {
  let work: string;
  let app: string;
  let kudos: KudosEmulator;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'passport-kudos-fresh-'));
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], process.cwd()));
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }),
    );
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        join(work, packed.filename),
        'express@^5',
        'express-session',
        'passport',
        'typescript@~5.9',
        'tsx@^4',
        '@types/node@^22',
        '@types/express',
        '@types/express-session',
        '@types/passport-oauth2',
      ],
      app,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['server.ts'],
      }),
    );
    copyFileSync('docs/snippets/quickstart.ts', join(app, 'server.ts'));
    copyFileSync('docs/snippets/quickstart.cjs', join(app, 'server.cjs'));
    kudos = await startKudosEmulator({
      clients: [
        {
          clientID: 'kudos-demo-client',
          clientSecret: 'kudos-demo-secret',
          redirectURIs: ['http://localhost/auth/kudos/callback'],
        },
      ],
    });
  }, 300_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    await kudos?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('compiles the TypeScript quick start with strict, NodeNext and skipLibCheck: false', () => {
    const out = run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', '.'], app);
    expect(out).toBe('');
  }, 120_000);

  async function logInThrough(program: string, runner: string[] = [process.execPath]): Promise<string> {
    const port = await freePort();
    const [command = process.execPath, ...args] = runner;
    const child = spawn(command, [...args, program], {
      cwd: app,
      env: {
        ...process.env,
        PORT: String(port),
        KUDOS_AUTH_URL: kudos.authURL,
        KUDOS_BASE_URL: kudos.baseURL,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      let text = '';
      child.stdout?.on('data', (c: Buffer) => {
        text += c.toString();
        if (text.includes('listening on')) resolve();
      });
      child.stderr?.on('data', (c: Buffer) => {
        text += c.toString();
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`${program} exited with ${code}: ${text}`)));
    });
    const browser = new CookieClient();
    const home = await browser.get(`http://localhost:${port}/`);
    expect(await home.text()).toContain('Log in with Kudos');
    const start = await browser.get(`http://localhost:${port}/auth/kudos`);
    const back = await passAuthorization(browser, locationOf(start));
    const callback = await browser.get(locationOf(back));
    expect(locationOf(callback).pathname).toBe('/profile');
    const profile = await (await browser.get(`http://localhost:${port}/profile`)).text();
    child.kill('SIGTERM');
    return profile;
  }

  it('runs the ESM TypeScript quick start: a login against the emulator lands on the profile', async () => {
    expect(await logInThrough('server.js')).toContain('<p id="user-id">alice</p>');
  }, 60_000);

  it('runs server.ts as the README says, with npx tsx and no other file', async () => {
    expect(await logInThrough('server.ts', [join(app, 'node_modules', '.bin', 'tsx')])).toContain(
      '<p id="user-id">alice</p>',
    );
  }, 60_000);

  it('runs the CommonJS quick start the same way', async () => {
    expect(await logInThrough('server.cjs')).toContain('<p id="user-id">alice</p>');
  }, 60_000);
});
