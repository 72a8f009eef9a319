// Checks the layers of src/ that ARCHITECTURE.md draws: no import cycles (type-only imports
// included), and each room imports only the rooms below it (or itself). Exits non-zero naming the
// offending files.
//
//   base  <-  protocol  <-  callback, tokens, webhook, redis, sqlite  <-  strategy  <-  index
//                       <-  emulator
//
// The entry points (index.ts, testing/) sit on top and may re-export any room but each other.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const LOW = ['base', 'protocol'];
const EMULATOR = [
  'emulator',
  'emulator/cli',
  'emulator/server',
  'emulator/model',
  'emulator/store',
  'emulator/routes',
  'emulator/views',
];

/** Rooms (folders of src/; "index" is src/index.ts) and the rooms each may import. */
export const ALLOWED = {
  base: ['base'],
  protocol: LOW,
  tokens: [...LOW, 'tokens'],
  callback: [...LOW, 'tokens', 'callback'],
  webhook: [...LOW, 'webhook', 'webhook/memory-store', 'webhook/payments'],
  // Orders on top of the receiver: kudosPayments() and the order store interface.
  'webhook/payments': [...LOW, 'webhook', 'webhook/memory-store', 'webhook/payments'],
  // The memory store implements the store interface of webhook/dedupe.ts, with the kept-record rule of kept-record.ts.
  'webhook/memory-store': [...LOW, 'webhook', 'webhook/memory-store'],
  redis: [...LOW, 'tokens', 'webhook', 'webhook/payments', 'redis'],
  sqlite: [...LOW, 'webhook', 'webhook/payments', 'sqlite'],
  strategy: [...LOW, 'callback', 'tokens', 'strategy'],
  index: [...LOW, 'callback', 'tokens', 'strategy'],
  ...Object.fromEntries(EMULATOR.map((room) => [room, [...LOW, ...EMULATOR]])),
  // passport-kudos/otel: reads the channels of base/trace.ts, nothing else of the package.
  otel: [...LOW, 'otel'],
  // passport-kudos/testing: the emulator, and the store contract that third-party stores run.
  testing: [...LOW, ...EMULATOR, 'webhook', 'webhook/payments'],
};

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const roomOf = (file) => relative('src', dirname(file)).replaceAll('\\', '/') || 'index';
const graph = new Map();
for (const file of files('src')) {
  const text = readFileSync(file, 'utf8');
  const targets = [...text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)].map((m) =>
    resolve(dirname(file), m[1].replace(/\.js$/, '.ts')),
  );
  graph.set(resolve(file), targets);
}

const problems = [];
for (const [file, targets] of graph) {
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
console.log(`check-imports: ${graph.size} files, no cycles, every room imports only the layers below it`);
