// 2. Cold start: process time of loading the package, against passport-oauth2 and an empty node.
import { spawnSync } from 'node:child_process';
import { summarize } from './lib/stats.mjs';

const CASES = [
  { name: 'node -e "" (empty)', args: ['-e', ''] },
  { name: "require('passport-oauth2')", args: ['-e', "require('passport-oauth2')"] },
  {
    name: "import('passport-oauth2')",
    args: ['--input-type=module', '-e', "await import('passport-oauth2')"],
  },
  { name: "require('passport-kudos')", args: ['-e', "require('passport-kudos')"] },
  { name: "import('passport-kudos')", args: ['--input-type=module', '-e', "await import('passport-kudos')"] },
  { name: "require('passport-kudos/webhook')", args: ['-e', "require('passport-kudos/webhook')"] },
  {
    name: "import('passport-kudos/webhook')",
    args: ['--input-type=module', '-e', "await import('passport-kudos/webhook')"],
  },
];

function time(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** @param {{ runs: number }} options */
export function benchColdStart({ runs }) {
  const samples = CASES.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [i, c] of CASES.entries()) samples[i].push(time(c.args)); // interleaved: same conditions
  }
  return CASES.map((c, i) => ({ name: c.name, ms: summarize(samples[i]) }));
}
