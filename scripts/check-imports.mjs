// Checks the houses that ARCHITECTURE.md draws, one per package of the workspace: no import cycle
// (every kind of import counts: static, type-only, re-exports, side-effect and dynamic `import()`),
// each room imports only its own and the rooms below it, a relative import never leaves its package,
// and a package imports by name only node: modules and what its package.json declares (the payments
// and the emulator no Passport package, the emulator neither passport-kudos nor kudos-payments).
// Exits non-zero naming the file and the import.
//
//   kudos-core  <-  passport-kudos        (sign-in)
//               <-  kudos-payments        (payments)
//               <-  kudos-emulator        (the local Kudos)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { manifestOf, PACKAGES } from './workspace.mjs';

/**
 * Each package's rooms lowest first, each with the rooms it may import besides itself. A room is a
 * folder of src/ ("index" is a file at src/'s top). Its folder: scripts/workspace.mjs.
 */
export const HOUSES = {
  'kudos-core': {
    rooms: {
      base: [],
      protocol: ['base'],
      chain: ['base', 'protocol'],
      redis: ['base'],
      otel: ['base'],
      index: ['base', 'protocol'],
    },
  },
  'passport-kudos': {
    rooms: {
      tokens: [],
      callback: ['tokens'],
      strategy: ['callback', 'tokens'],
      redis: ['tokens'],
      otel: [],
      index: ['callback', 'tokens', 'strategy'],
    },
  },
  'kudos-payments': {
    rooms: {
      // a notification in, processed once (pipeline, process-once, parse, body, secret, confirm, the
      // dedupe store interface, its tracing)
      core: [],
      // the kept-record rule, the store contract; memory/: the default store
      stores: ['core'],
      'stores/memory': ['core', 'stores'],
      // unprocessed, redrive, reconcile, the chain, status
      recovery: ['core'],
      // the receiver (receiver.ts, options.ts) and the entry point
      index: ['core', 'stores', 'stores/memory', 'recovery', 'adapters', 'payments'],
      // Node (Express, Fastify, NestJS) and Fetch around the receiver
      adapters: ['index', 'core'],
      // orders on top of the receiver: kudosPayments(), the ledger, the order store interface
      payments: ['index', 'core', 'stores', 'stores/memory', 'recovery', 'adapters'],
      redis: ['core', 'stores', 'payments'],
      sqlite: ['core', 'stores', 'payments'],
      otel: [],
      testing: ['stores', 'payments'],
    },
  },
  'kudos-emulator': {
    // Its files at the top of src/ are rooms of their own (packages/kudos-emulator/ARCHITECTURE.md).
    ranks: [
      ['checks.ts', 'clock.ts', 'emulator-options.ts', 'transaction.ts', 'admin-sessions.ts'], // its words and options
      ['state.ts'], // what it holds
      ['model'], // the service's rules
      ['webhook-sender.ts'], // notifications
      ['store'], // the state file
      ['server'], // HTTP plumbing
      ['views'], // pages
      ['routes'], // the operations, one module per area
      ['emulator.ts', 'index.ts'], // the emulator assembled, and its module
      ['cli', 'cli.ts'], // the command
    ],
  },
};

/** Package names no package of the payments or the emulator may import, whatever it declares. */
const NEVER = {
  'kudos-core': [/^passport/, /^kudos-(payments|emulator)/],
  'passport-kudos': [/^kudos-(payments|emulator)/],
  'kudos-payments': [/^passport/],
  'kudos-emulator': [/^passport/, /^kudos-payments/],
};
const BUILTIN = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every module a file imports, whatever the kind of import; comments are not code. */
export function specifiers(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = [
    ...code.matchAll(/^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    ...code.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  return [...new Set(found.map((m) => m[1]))];
}

/** The package name of a bare specifier (`@scope/name/sub` → `@scope/name`). */
const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const inside = (dir, file) => !relative(resolve(dir), file).startsWith('..');
const shown = (file) => relative(process.cwd(), file);

const graph = new Map();
const problems = [];

for (const [name, dir] of Object.entries(PACKAGES)) {
  const pkg = HOUSES[name];
  const src = resolve(dir, 'src');
  const manifest = manifestOf(dir);
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  // A type-only peer (`@types/express`) declares the module its types are of (`express`).
  for (const dep of [...declared]) if (dep.startsWith('@types/')) declared.add(dep.slice('@types/'.length));
  const roomOf = (file) => {
    const rel = relative(src, file).replaceAll('\\', '/');
    if (pkg.ranks) return rel.split('/')[0];
    const folder = dirname(rel);
    return folder === '.' ? 'index' : folder;
  };
  const rankOf = (file) => pkg.ranks.findIndex((rooms) => rooms.includes(roomOf(file)));
  for (const file of files(src).map((f) => resolve(f))) {
    const targets = [];
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        if (!inside(src, target)) {
          problems.push(
            `${shown(file)} imports ${shown(target)}, outside ${name} (import the package by name)`,
          );
          continue;
        }
        targets.push(target);
        if (pkg.ranks) {
          if (rankOf(target) > rankOf(file))
            problems.push(`${shown(file)} imports ${shown(target)}, a room above it (${name}'s ranks)`);
          continue;
        }
        const from = roomOf(file);
        const to = roomOf(target);
        if (!(from in pkg.rooms)) problems.push(`${shown(file)}: room "${from}" of ${name} has no rule here`);
        else if (from !== to && !pkg.rooms[from].includes(to))
          problems.push(`${shown(file)} (${from}) imports ${shown(target)} (${to})`);
      } else if (!BUILTIN.has(spec) && !spec.startsWith('node:')) {
        const other = packageName(spec);
        if (NEVER[name].some((rule) => rule.test(other)))
          problems.push(`${shown(file)} imports '${spec}' (${name} never imports ${other})`);
        else if (other !== name && !declared.has(other))
          problems.push(`${shown(file)} imports '${spec}', which ${dir}/package.json does not declare`);
      }
    }
    graph.set(file, targets);
    if (pkg.ranks && rankOf(file) === -1) problems.push(`${shown(file)}: the room has no rank here`);
  }
}

// Cycles: depth-first search with colours, over every kind of import.
const state = new Map();
const stack = [];
function visit(file) {
  state.set(file, 'open');
  stack.push(file);
  for (const target of graph.get(file) ?? []) {
    if (state.get(target) === 'open') {
      const cycle = stack.slice(stack.indexOf(target)).map(shown);
      problems.push(`import cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
    } else if (!state.has(target) && graph.has(target)) visit(target);
  }
  stack.pop();
  state.set(file, 'done');
}
for (const file of graph.keys()) if (!state.has(file)) visit(file);

if (problems.length > 0) {
  console.error(`check-imports: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(
  `check-imports: ${graph.size} files in ${Object.keys(PACKAGES).length} packages, no cycle (dynamic and type-only imports counted), every room imports only the rooms below it, every package only what it declares`,
);
