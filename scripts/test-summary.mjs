// Prints the plain closing line "N passed, N failed" from vitest's JSON report, so that any
// CI can read the counts. Exits non-zero when the report is missing, or counts a failure or a skip.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync('test-results/vitest.json', 'utf8'));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exit(report.numFailedTests === 0 && skipped === 0 && report.numPassedTests > 0 ? 0 : 1);
