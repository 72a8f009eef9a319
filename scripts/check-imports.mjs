// Checks the layers that ARCHITECTURE.md draws: no import cycles (type-only imports included), and
// each room of src/ imports only the rooms below it (or itself). Checks the package boundary too: the
// emulator's package (packages/kudos-emulator/src) imports the library only through
// passport-kudos/contract, and the library never imports the emulator. Exits non-zero naming the
// offending files.
//
//   base  <-  protocol  <-  callback, tokens, webhook, redis, sqlite  <-  strategy  <-  index
//                       <-  contract  <-  (the kudos-emulator package)
//
// The entry points (index.ts, testing/, contract/) sit on top and may re-export the rooms they serve.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

const LOW = ['base', 'protocol'];
const WEBHOOK_PARTS = [
  'webhook/core',
  'webhook/stores',
  'webhook/stores/memory',
  'webhook/recovery',
  'webhook/adapters',
  'webhook/payments',
];

/** Rooms (folders of src/; "index" is src/index.ts) and the rooms each may import. */
export const ALLOWED = {
  base: ['base'],
  protocol: LOW,
  tokens: [...LOW, 'tokens'],
  callback: [...LOW, 'tokens', 'callback'],
  // The receiver by concern. core: a notification in, processed once (pipeline, process-once, parse,
  // body, secret, confirm, the dedupe store interface, its tracing). stores: the kept-record rule, the
  // store contract, the memory store. recovery: unprocessed, redrive, reconcile, status.
  'webhook/core': [...LOW, 'webhook/core'],
  'webhook/stores': [...LOW, 'webhook/core', 'webhook/stores'],
  'webhook/stores/memory': [...LOW, 'webhook/core', 'webhook/stores', 'webhook/stores/memory'],
  'webhook/recovery': [...LOW, 'webhook/core', 'webhook/recovery'],
  // The receiver itself (receiver.ts: the core with recovery; options.ts) and the entry point.
  webhook: [...LOW, 'webhook', ...WEBHOOK_PARTS],
  // Node (Express, Fastify, NestJS) and Fetch around the receiver.
  'webhook/adapters': [...LOW, 'webhook', 'webhook/core', 'webhook/adapters'],
  // Orders on top of the receiver: kudosPayments() and the order store interface.
  'webhook/payments': [...LOW, 'webhook', ...WEBHOOK_PARTS],
  redis: [...LOW, 'tokens', 'webhook/core', 'webhook/stores', 'webhook/payments', 'redis'],
  sqlite: [...LOW, 'webhook/core', 'webhook/stores', 'webhook/payments', 'sqlite'],
  strategy: [...LOW, 'callback', 'tokens', 'strategy'],
  index: [...LOW, 'callback', 'tokens', 'strategy'],
  // passport-kudos/otel: reads the channels of base/trace.ts, nothing else of the package.
  otel: [...LOW, 'otel'],
  // passport-kudos/testing: the store contracts that third-party stores run.
  testing: [...LOW, 'webhook/stores', 'webhook/payments'],
  // passport-kudos/contract: the wire contract, for the emulator's package.
  contract: LOW,
};

/** The emulator's package: its rooms import their own rank and those below; the library only by this name. */
const EMULATOR_SRC = 'packages/kudos-emulator/src';

/**
 * The emulator's rooms (folders of its src/, or files at its top), lowest first: each may import its
 * own rank and the ranks below it, never one above (packages/kudos-emulator/ARCHITECTURE.md).
 */
export const EMULATOR_RANKS = [
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
];

/** The rank of an emulator file: its folder's, or its own name's at the top. */
function emulatorRank(file) {
  const [first = ''] = relative(resolve(EMULATOR_SRC), file).split(/[\\/]/);
  return EMULATOR_RANKS.findIndex((rooms) => rooms.includes(first));
}
const LIBRARY_DOOR = 'passport-kudos/contract';
const BUILTIN = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const specifiers = (text) => [...text.matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)].map((m) => m[1]);
const inside = (dir, file) => !relative(resolve(dir), file).startsWith('..');
const roomOf = (file) => relative('src', dirname(file)).replaceAll('\\', '/') || 'index';
const graph = new Map();
const problems = [];

for (const file of files('src')) {
  const specs = specifiers(readFileSync(file, 'utf8'));
  for (const spec of specs.filter((s) => s === 'kudos-emulator' || s.startsWith('kudos-emulator/'))) {
    problems.push(`${file} imports '${spec}' (the library never imports the emulator's package)`);
  }
  graph.set(
    resolve(file),
    specs.filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts'))),
  );
}

const emulatorFiles = existsSync(EMULATOR_SRC) ? files(EMULATOR_SRC) : [];
for (const file of emulatorFiles) {
  const targets = [];
  for (const spec of specifiers(readFileSync(file, 'utf8'))) {
    if (spec.startsWith('.')) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (inside(EMULATOR_SRC, target)) targets.push(target);
      else
        problems.push(
          `${file} imports ${relative(process.cwd(), target)} (outside its package: use '${LIBRARY_DOOR}')`,
        );
    } else if (!BUILTIN.has(spec) && spec !== LIBRARY_DOOR) {
      problems.push(
        `${file} imports '${spec}' (the emulator's package imports node: modules and '${LIBRARY_DOOR}' only)`,
      );
    }
  }
  graph.set(resolve(file), targets);
}

for (const [file, targets] of graph) {
  if (inside(EMULATOR_SRC, file)) {
    const from = emulatorRank(file);
    if (from === -1) problems.push(`${relative(process.cwd(), file)}: the emulator's room has no rank here`);
    for (const target of targets) {
      if (emulatorRank(target) > from) {
        problems.push(
          `${relative(process.cwd(), file)} imports ${relative(process.cwd(), target)}, a room above it (the emulator's ranks)`,
        );
      }
    }
    continue;
  }
  const from = roomOf(relative(process.cwd(), file));
  if (!(from in ALLOWED)) problems.push(`${relative(process.cwd(), file)}: room "${from}" has no rule here`);
  for (const target of targets) {
    const to = roomOf(relative(process.cwd(), target));
    if (!(ALLOWED[from] ?? []).includes(to)) {
      problems.push(
        `${relative(process.cwd(), file)} (${from}) imports ${relative(process.cwd(), target)} (${to})`,
      );
    }
  }
}

// Cycles: depth-first search with colours.
const state = new Map();
const stack = [];
function visit(file) {
  state.set(file, 'open');
  stack.push(file);
  for (const target of graph.get(file) ?? []) {
    if (state.get(target) === 'open') {
      const cycle = stack.slice(stack.indexOf(target)).map((f) => relative(process.cwd(), f));
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
  `check-imports: ${graph.size} files, no cycles, every room imports only the layers below it (the emulator's too), the emulator's package the library only through ${LIBRARY_DOOR}`,
);
