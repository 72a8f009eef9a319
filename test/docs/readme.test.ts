import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import * as emulator from 'kudos-emulator';
import { describe, expect, it } from 'vitest';
import * as contract from '../../packages/kudos-core/src/chain/index.js';
import * as coreOtel from '../../packages/kudos-core/src/otel/index.js';
import * as webhook from '../../packages/kudos-payments/src/index.js';
import * as paymentsOtel from '../../packages/kudos-payments/src/otel/index.js';
import * as paymentsRedis from '../../packages/kudos-payments/src/redis/index.js';
import * as sqlite from '../../packages/kudos-payments/src/sqlite/index.js';
import * as testing from '../../packages/kudos-payments/src/testing/index.js';
import { errorTableMarkdown } from '../../scripts/doc-tables.js';
import * as main from '../../src/index.js';
import * as otel from '../../src/otel/index.js';
import * as redis from '../../src/redis/index.js';

// The README is the guide a newcomer reads in one sitting; the reference lives in docs/ pages it links
// to. Their code and tables are made from their sources (`npm run docs`): the code examples are the
// files of docs/snippets (type-checked by `npm run typecheck`, the runnable ones run by the tests
// named below), the error table is KUDOS_ERROR_CODES, the route table the emulator's ROUTES.
const readme = readFileSync('README.md', 'utf8');
const PAGES = readdirSync('docs')
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const GUIDE = ['README.md', 'CONTRIBUTING.md', ...PAGES];
const text = (file: string) => readFileSync(file, 'utf8');
const FENCES: Record<string, string> = { ts: 'ts', cjs: 'js' };

/** GitHub's anchor of a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\w\- ]/g, '')
    .replaceAll(' ', '-');

/** The anchors a Markdown file offers: its headings (outside code) and its `<a id>` tags. */
function anchorsOf(file: string): Set<string> {
  const body = text(file).replace(/^```[\s\S]*?^```/gm, '');
  return new Set([
    ...[...body.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] as string)),
    ...[...body.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] as string),
  ]);
}

describe('README.md', () => {
  it('is a guide of at most 600 lines, in the order a newcomer needs it', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(600);
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      'Install',
      'Try it from a clone',
      'Contents',
      'Quick start',
      'The sign-in button',
      'Keeping users signed in',
      'Receiving payments',
      'Testing with the emulator',
      'Running several instances',
      'Going to production',
      'More',
      'Developing passport-kudos',
    ]);
    // The payment section: the three identities in a table before the code, the decision rules after.
    const payments = readme.slice(readme.indexOf('## Receiving payments'));
    const table = payments.indexOf('| `wallet` | your **wallet**');
    const code = payments.indexOf('<!-- generated:payments.ts -->');
    const rules = payments.indexOf('A payment pays an order only when');
    expect(table).toBeGreaterThan(0);
    expect(code).toBeGreaterThan(table);
    expect(rules).toBeGreaterThan(code);
  });

  it('opens for users: what the package is, how to install it, the two commands for a fresh clone', () => {
    const firstScreen = readme.split('\n').slice(0, 40).join('\n');
    expect(firstScreen).toMatch(/^# passport-kudos\n\nKudos is a tipping and payment service/);
    expect(firstScreen).toContain('## Install');
    expect(firstScreen).toContain('npm install passport-kudos');
    expect(firstScreen).toContain('## Try it from a clone');
    expect(firstScreen).not.toContain('## Developing passport-kudos'); // contributors further down
    expect(firstScreen).toContain('npm ci && npm start');
    expect(firstScreen).toContain('npm test');
  });

  // The reference moved out of the README has one home each, which the README links to.
  it.each([
    [
      'docs/reference.md',
      [
        'Options',
        'The verify function and the profile',
        'What happens at the callback',
        'Compatibility with passport-oauth2',
        'Errors',
        'The helpers the package exports',
        'Defaults where the service is silent',
        'The quick start in CommonJS',
      ],
    ],
    [
      'docs/payments.md',
      [
        'What the receiver does',
        'Paying in a popup',
        'Nothing lost: unprocessed notifications, redrive and reconcile',
        'What survives which fault',
      ],
    ],
    [
      'docs/emulator.md',
      [
        'Test helpers',
        'From the shell',
        'Routes',
        'What it emulates faithfully',
        'What it chose where the service is silent',
      ],
    ],
    ['docs/scaling.md', ['Clients', 'Failover']],
    ['CONTRIBUTING.md', ['Running it', 'Tests', 'Library or example?', 'Benchmarks']],
  ])('%s holds what moved there, and the README links to it', (file, sections) => {
    const headings = [...text(file).matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    for (const section of sections) expect(headings, file).toContain(section);
    expect(readme).toContain(`](${file}`);
    for (const section of sections) {
      // docs/kudos-service.md describes the service (its own errors), not the package.
      const home = GUIDE.filter(
        (f) =>
          f !== file &&
          f !== 'docs/kudos-service.md' &&
          new RegExp(`^## ${section.replace(/[?()]/g, '\\$&')}$`, 'm').test(text(f)),
      );
      expect(home, `"${section}" has one home`).toEqual([]);
    }
  });

  it('lists every error code in docs/reference.md, from KUDOS_ERROR_CODES', () => {
    expect(text('docs/reference.md')).toContain(errorTableMarkdown());
  });
});

describe('the guide: README.md, CONTRIBUTING.md and docs/', () => {
  // A value an entry point exports is public: the guide says what it is for.
  it.each(
    Object.entries({
      main,
      webhook,
      redis,
      paymentsRedis,
      sqlite,
      testing,
      otel,
      paymentsOtel,
      coreOtel,
      contract,
      emulator,
    }).flatMap(([entry, values]) => Object.keys(values).map((name) => [entry, name])),
  )("documents the %s entry point's %s", (_, name) => {
    expect(GUIDE.map(text).join('\n')).toMatch(new RegExp(`\\b${name}\\b`));
  });

  const snippets = readdirSync('docs/snippets').filter((f) => /\.(ts|cjs)$/.test(f));

  it.each(snippets)('shows docs/snippets/%s verbatim, in one place', (file) => {
    const fence = FENCES[file.split('.').pop() as string];
    const code = readFileSync(join('docs/snippets', file), 'utf8').trimEnd();
    const block = `<!-- generated:${file} -->\n\`\`\`${fence}\n${code}\n\`\`\`\n<!-- /generated:${file} -->`;
    const homes = [...GUIDE, 'packages/kudos-core/README.md', 'packages/kudos-payments/README.md'];
    expect(homes.filter((f) => text(f).includes(block))).toHaveLength(1);
  });

  it.each(GUIDE)(
    '%s has no code block outside the generated ones but shell, HTML, JSON, YAML, text and fragments',
    (file) => {
      const outside = text(file).replace(
        /<!-- generated:([a-z0-9./-]+) -->[\s\S]*?<!-- \/generated:\1 -->/g,
        '',
      );
      for (const [, language, body] of outside.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
        if (['sh', 'html', 'json', 'text', 'yaml'].includes(language as string)) continue;
        expect(body, `a ${language} block of ${file}`).toMatch(/^\/\/ Fragment: .+/);
      }
    },
  );

  it.each(GUIDE)('%s links only to files and anchors that exist', (file) => {
    const links = [
      ...text(file)
        .replace(/^```[\s\S]*?^```/gm, '')
        .matchAll(/\]\(([^)\s]+)\)/g),
    ].map((m) => m[1] as string);
    const broken: string[] = [];
    for (const link of links.filter((l) => !/^(https?:|mailto:)/.test(l))) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(target)) {
        broken.push(link);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(link);
    }
    expect(broken).toEqual([]);
  });

  // Every example that looks like a program is run by a test as a user would run it; any other one
  // says in its first line that it is a fragment, and where it goes.
  const RUN_BY: Record<string, string> = {
    'quickstart.ts': 'test/e2e/fresh-app.test.ts',
    'quickstart.cjs': 'test/e2e/fresh-app.test.ts',
    'verify-forms.ts': 'test/e2e/fresh-app.test.ts',
    'profile-hooks.ts': 'test/e2e/fresh-app.test.ts',
    'emulator-test.ts': 'test/e2e/fresh-app.test.ts',
    'webhook.ts': 'test/e2e/readme-webhook.test.ts',
    'payments.ts': 'test/e2e/readme-webhook.test.ts',
    'other-providers.ts': 'test/e2e/other-providers.test.ts',
    'observability.ts': 'test/e2e/observability-snippet.test.ts',
    'core-errors.ts': 'test/docs/package-readmes.test.ts',
    'payments-first.ts': 'test/docs/package-readmes.test.ts',
  };
  it.each(snippets)('docs/snippets/%s is run by a test, or marked as a fragment', (file) => {
    const code = readFileSync(join('docs/snippets', file), 'utf8');
    const runner = RUN_BY[file];
    if (runner) expect(readFileSync(runner, 'utf8')).toContain(`docs/snippets/${file}`);
    else expect(code).toMatch(/^\/\/ Fragment: .+/);
  });
});

describe('one default service address', () => {
  it('every snippet and guide that defaults to a local Kudos names http://127.0.0.1:4000', () => {
    const files = [
      'README.md',
      ...readdirSync('docs')
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
      ...readdirSync('docs/snippets').map((f) => `docs/snippets/${f}`),
    ];
    const others = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/'(http:\/\/[a-z0-9.]+:4000)(?:\/api)?'/g)]
        .map((m) => m[1])
        .filter((address) => address !== 'http://127.0.0.1:4000')
        .map((address) => `${file}: ${address}`),
    );
    expect(others).toEqual([]);
  });
});

describe("docs/observability.md's install line", () => {
  const line =
    /^npm install passport-kudos (?:[a-z][a-z-]* )*(@opentelemetry\/.+)$/m.exec(
      text('docs/observability.md'),
    )?.[1] ?? '';
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> };

  it('names every @opentelemetry package the snippet imports, each at the range this repository tests', () => {
    const installed = Object.fromEntries(
      line
        .split(' ')
        .map((spec) => [spec.slice(0, spec.lastIndexOf('@')), spec.slice(spec.lastIndexOf('@') + 1)]),
    );
    const imported = [
      ...readFileSync('docs/snippets/observability.ts', 'utf8').matchAll(/from '(@opentelemetry\/[a-z-]+)'/g),
    ].map((m) => m[1] as string);
    expect(Object.keys(installed).sort()).toEqual([...new Set(imported)].sort());
    for (const [name, range] of Object.entries(installed))
      expect(range, name).toBe(pkg.devDependencies[name]);
  });
});
