// Checks the import structure of src/ that ARCHITECTURE.md describes: no import cycles (type-only
// imports included), and each room imports only the rooms it may. Exits non-zero naming the
// offending files.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Rooms (folders of src/; "core" is src/ itself) and the rooms each may import. */
export const ALLOWED = {
  core: ['core', 'callback', 'tokens'],
  callback: ['core', 'callback', 'tokens'],
  tokens: ['core', 'tokens'],
  webhook: ['core', 'webhook'],
  redis: ['core', 'redis', 'webhook', 'tokens'],
  emulator: ['core', 'emulator', 'emulator/routes', 'emulator/views'],
  'emulator/routes': ['core', 'emulator', 'emulator/routes', 'emulator/views'],
  'emulator/views': ['core', 'emulator', 'emulator/views'],
};

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const roomOf = (file) => relative('src', dirname(file)).replaceAll('\\', '/') || 'core';
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
  for (const target of targets) {
    const to = roomOf(relative(process.cwd(), target));
    // Entry points may re-export: the main one any room's public API, the testing one (the emulator's)
    // the dedupe store contract that third-party stores run.
    const entry =
      (from === 'core' && file.endsWith('index.ts')) ||
      (from === 'emulator' && file.endsWith('index.ts') && target.endsWith('store-contract.ts'));
    if (!(ALLOWED[from] ?? []).includes(to) && !entry) {
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
console.log(`check-imports: ${graph.size} files, no cycles, every import within its room's rules`);
