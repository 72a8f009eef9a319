import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endWithTestFile } from '../helpers/children.js';
import { authURLOf, type StartedEmulator, startCli } from '../helpers/cli.js';
import { CookieClient, locationOf } from '../helpers/cookie-client.js';
import { passAuthorization } from '../helpers/emulator-user.js';
import { portZeroEnv, reportedPort } from '../helpers/handed-port.js';
import { type PackedApp, packedApp, run, STRICT_APP_COMPILER_OPTIONS } from '../helpers/packed-app.js';

// A new user's first hour: both packed tarballs (passport-kudos and kudos-emulator) installed into a
// fresh app outside the repository, the README's quick start (docs/snippets) compiled with strict
// TypeScript (NodeNext, skipLibCheck false) and run, in ESM TypeScript and in CommonJS, logging in
// over HTTP against the packed emulator's command; the README's vitest example pays against its module.
describe('the README quick start in a fresh app that installs the packed tarballs', () => {
  let packed: PackedApp;
  let app: string;
  let emulator: StartedEmulator;
  let kudos: { authURL: string; baseURL: string };
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    packed = packedApp('fresh-app', [
      'express@^5',
      'express-session',
      'passport',
      'typescript@~5.9',
      'tsx@^4',
      'vitest',
      '@types/node@^22',
      '@types/express',
      '@types/express-session',
      '@types/passport-oauth2',
    ]);
    app = packed.dir;
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { ...STRICT_APP_COMPILER_OPTIONS, types: ['node'] },
        files: ['server.ts', 'verify-forms.ts', 'profile-hooks.ts'],
      }),
    );
    copyFileSync('docs/snippets/quickstart.ts', join(app, 'server.ts'));
    copyFileSync('docs/snippets/verify-forms.ts', join(app, 'verify-forms.ts'));
    copyFileSync('docs/snippets/profile-hooks.ts', join(app, 'profile-hooks.ts'));
    copyFileSync('docs/snippets/emulator-test.ts', join(app, 'kudos.test.ts'));
    copyFileSync('docs/snippets/quickstart.cjs', join(app, 'server.cjs'));
    // The packed emulator's command, as `npx kudos-emulator` runs it in the app: its demo client
    // takes the quick start's callback on any loopback port.
    emulator = startCli(['--port', '0'], [], join(app, 'node_modules', '.bin', 'kudos-emulator'));
    const authURL = authURLOf(await emulator.output);
    expect(authURL, 'the packed emulator printed its authURL').toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    kudos = { authURL, baseURL: `${authURL}/api` };
  }, 300_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    emulator?.child.kill('SIGTERM');
    await emulator?.exit;
    packed.remove();
  });

  it('compiles the TypeScript quick start with strict, NodeNext and skipLibCheck: false', () => {
    const out = run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', '.'], app);
    expect(out).toBe('');
  }, 120_000);

  /** Starts one of the quick starts on port 0, as its process says (`output` collects what it prints). */
  async function serve(program: string, runner: string[], env: Record<string, string> = {}) {
    const [command = process.execPath, ...args] = runner;
    const child = spawn(command, [...args, program], {
      cwd: app,
      env: {
        ...process.env,
        KUDOS_AUTH_URL: kudos.authURL,
        KUDOS_BASE_URL: kudos.baseURL,
        ...env,
        ...portZeroEnv(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(endWithTestFile(child));
    const output = { text: '' };
    const port = await new Promise<number>((resolve, reject) => {
      // Its own words ("listening on") and the port its process bound (the preload's line).
      const collect = (c: Buffer) => {
        output.text += c.toString();
        const bound = reportedPort(output.text);
        if (bound !== undefined && output.text.includes('listening on')) resolve(bound);
      };
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`${program} exited with ${code}: ${output.text}`)));
    });
    return { port, child, output };
  }

  async function logInThrough(program: string, runner: string[] = [process.execPath]): Promise<string> {
    const { port, child } = await serve(program, runner);
    const browser = new CookieClient();
    const home = await browser.get(`http://localhost:${port}/`);
    expect(await home.text()).toContain('Sign in with Kudos');
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

  it('compiles the quick start with docs/reference.md’s tsconfig in an `npm init -y` folder ("type": "commonjs"), and signs in', async () => {
    const dir = join(app, 'init-y');
    mkdirSync(dir, { recursive: true });
    // What `npm init -y` of npm 11 writes (the type is what matters).
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'init-y', version: '1.0.0', type: 'commonjs' }),
    );
    const shown = /<!-- quickstart-tsconfig -->\s*```json\n([\s\S]*?)```/.exec(
      readFileSync('docs/reference.md', 'utf8'),
    );
    writeFileSync(join(dir, 'tsconfig.json'), shown?.[1] ?? '');
    copyFileSync('docs/snippets/quickstart.ts', join(dir, 'server.ts'));
    expect(run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', '.'], dir)).toBe('');
    expect(readFileSync(join(dir, 'dist', 'server.js'), 'utf8')).toContain('require("passport-kudos")');
    expect(await logInThrough(join('init-y', 'dist', 'server.js'))).toContain('<p id="user-id">alice</p>');
  }, 120_000);

  it('runs the CommonJS quick start the same way', async () => {
    expect(await logInThrough('server.cjs')).toContain('<p id="user-id">alice</p>');
  }, 60_000);

  it.each(['server.js', 'server.cjs'])(
    '%s tells a declined sign-in on the page, and logs a token error',
    async (program) => {
      const { port, child } = await serve(program, [process.execPath]);
      const browser = new CookieClient();
      const back = await passAuthorization(
        browser,
        locationOf(await browser.get(`http://localhost:${port}/auth/kudos`)),
        // bobby: alice authorized the app in the tests above, and is no longer asked.
        { username: 'bobby', password: 'builder', decision: 'decline' },
      );
      const home = locationOf(await browser.get(locationOf(back)));
      expect(home.pathname).toBe('/');
      expect(home.search).toBe('?failed=declined');
      expect(await (await browser.get(`http://localhost:${port}/${home.search}`)).text()).toContain(
        '<p id="failure" role="alert">You declined to sign in with Kudos.</p>',
      );
      child.kill('SIGTERM');
      const wrong = await serve(program, [process.execPath], { KUDOS_CLIENT_SECRET: 'not-the-secret' });
      const other = new CookieClient();
      const returned = await passAuthorization(
        other,
        locationOf(await other.get(`http://localhost:${wrong.port}/auth/kudos`)),
      );
      const failed = await other.get(locationOf(returned));
      expect(failed.status).toBe(502);
      expect(await failed.text()).toContain('INVALID_CLIENT_CRED');
      expect(wrong.output.text).toContain('Kudos sign-in failed: INVALID_CLIENT_CRED (502)');
      expect(wrong.output.text).not.toContain('not-the-secret');
      wrong.child.kill('SIGTERM');
    },
    60_000,
  );

  it('runs the verify and profile-hook examples as compiled', () => {
    for (const program of ['verify-forms.js', 'profile-hooks.js']) {
      expect(run(process.execPath, [program], app)).toBe('');
    }
  }, 60_000);

  it("runs the README's vitest example with vitest's defaults", () => {
    const out = run(join(app, 'node_modules', '.bin', 'vitest'), ['run', '--reporter=dot'], app);
    expect(out).toMatch(/1 passed/);
  }, 120_000);
});
