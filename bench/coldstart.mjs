// 2. Cold start: loading the package in a fresh node process, against passport-oauth2 and an empty
// node. Two figures per case: the whole process (node's own start included, which varies by tens of
// milliseconds from one spawn to the next) and the load alone, timed inside the process around the
// require() or import() — the figure the goals compare, as it is the part a package adds.
import { spawnSync } from 'node:child_process';
import { summarize } from './lib/stats.mjs';

const CASES = [
  { name: 'node -e "" (empty)', load: null },
  { name: "require('passport-oauth2')", load: "require('passport-oauth2')" },
  { name: "import('passport-oauth2')", load: "await import('passport-oauth2')", esm: true },
  { name: "require('passport-kudos')", load: "require('passport-kudos')" },
  { name: "import('passport-kudos')", load: "await import('passport-kudos')", esm: true },
  { name: "require('kudos-payments')", load: "require('kudos-payments')" },
  { name: "import('kudos-payments')", load: "await import('kudos-payments')", esm: true },
];

/** Spawns one case: the process time, and the load time it prints. */
function time(c) {
  const code =
    c.load === null
      ? 'process.stdout.write("0")'
      : `const t = performance.now(); ${c.load}; process.stdout.write(String(performance.now() - t));`;
  const args = c.esm ? ['--input-type=module', '-e', code] : ['-e', code];
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const processMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr}`);
  return { processMs, loadMs: Number(result.stdout) };
}

/** @param {{ runs: number }} options */
export function benchColdStart({ runs }) {
  const samples = CASES.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [i, c] of CASES.entries()) samples[i].push(time(c)); // interleaved: same conditions
  }
  // Paired: each case against the spawn of require('passport-oauth2') of the same run, so that
  // the machine's drift between runs cancels; the median of those differences is the figure.
  const anchor = samples[CASES.findIndex((c) => c.load === "require('passport-oauth2')")];
  return CASES.map((c, i) => ({
    name: c.name,
    ms: summarize(samples[i].map((s) => s.processMs)),
    loadMs: summarize(samples[i].map((s) => s.loadMs)),
    pairedMs: summarize(samples[i].map((s, run) => s.processMs - anchor[run].processMs)),
  }));
}
