// Prints the plain closing line "N passed, N failed" from vitest's JSON reports, so that any CI can
// read the counts: one report per Node version that .ci/run tested (test-results/vitest-node*.json)
// and one of the sign-in tests on the newest passport-oauth2 1.x (vitest-passport-oauth2.json), or
// the last run's (test-results/vitest.json). Exits non-zero when there is no report, or one counts a
// failure or a skip.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const perNode = existsSync('test-results')
  ? readdirSync('test-results').filter((f) => /^vitest-(node\d+|passport-oauth2)\.json$/.test(f))
  : [];
const files = perNode.length > 0 ? perNode.sort() : ['vitest.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  const report = JSON.parse(readFileSync(`test-results/${file}`, 'utf8'));
  const skips = report.numPendingTests + report.numTodoTests;
  if (perNode.length > 0) {
    console.log(
      `${file.replace(/^vitest-|\.json$/g, '')}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skips} skipped`,
    );
  }
  if (report.numPassedTests === 0) failed++;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += skips;
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && skipped === 0 && passed > 0 ? 0 : 1);
