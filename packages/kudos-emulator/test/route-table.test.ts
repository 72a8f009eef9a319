import { readdirSync, readFileSync } from 'node:fs';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorRoute, ROUTES, routeTableMarkdown } from '../src/server/route-table.js';

// The route table is the one list of the emulator's endpoints: the server answers each route, the
// home page shows each, and both READMEs carry the table as generated (`npm run docs`).
describe('the emulator route table', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator();
  });
  afterAll(() => kudos.close());

  it('is what the server serves: no route of the table answers 404, and an unknown path does', async () => {
    for (const route of Object.values(ROUTES) as EmulatorRoute[]) {
      const path = route.path
        .replace('{user}', 'alice')
        .replace('{id}', 'alice')
        .replace('{hash}', 'A'.repeat(64));
      const res = await fetch(`${kudos.authURL}${path}`, { method: route.method, redirect: 'manual' });
      // The route's own answer (a 404 for an unknown transaction is one), never the router's.
      expect(await res.text(), `${route.method} ${route.path}`).not.toMatch(
        /^METHOD_NOT_ALLOWED$|<pre>Cannot (GET|POST) /,
      );
    }
    const unknown = await fetch(`${kudos.authURL}/not/a/route`);
    // As the service's API (Express, no 404 handler of its own): Express's page.
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('<pre>Cannot GET /not/a/route</pre>');
  });

  it('is listed on the home page, route by route', async () => {
    const html = await (await fetch(`${kudos.authURL}/`)).text();
    for (const route of Object.values(ROUTES) as EmulatorRoute[]) {
      const url = `${kudos.authURL}${route.path}`;
      expect(html).toContain(`${route.method} ${url.replaceAll('&', '&amp;')}`);
    }
  });

  it.each(['docs/emulator.md', 'packages/kudos-emulator/ARCHITECTURE.md'])(
    'is in %s exactly as generated',
    (file) => {
      expect(readFileSync(file, 'utf8')).toContain(routeTableMarkdown());
    },
  );
});

describe("the emulator's README", () => {
  it('names every file of packages/kudos-emulator/src/ in its table of files (those of routes/ and views/ by their folder)', () => {
    const readme = readFileSync('packages/kudos-emulator/ARCHITECTURE.md', 'utf8');
    const named = ['', 'cli/', 'server/', 'model/', 'store/'].flatMap((folder) =>
      readdirSync(`packages/kudos-emulator/src/${folder}`).filter((f) => f.endsWith('.ts')),
    );
    expect(named.length).toBeGreaterThan(20);
    for (const file of named) expect(readme, file).toContain(`\`${file}\``);
  });

  it('keeps the top of packages/kudos-emulator/src/ to at most 10 files: the rest sits in a folder per concern', () => {
    const top = readdirSync('packages/kudos-emulator/src', { withFileTypes: true }).filter((e) => e.isFile());
    expect(top.length).toBeLessThanOrEqual(10);
  });
});
