// What the harness's page watches (layout-shift.mjs, focus-watch.mjs) do
// with what they saw during a test. GUICHET_E2E_WATCH=fail fails the test;
// GUICHET_E2E_WATCH_REPORT=<file> lists it there (a survey of the whole
// suite in one run: `GUICHET_E2E_WATCH=report GUICHET_E2E_WATCH_REPORT=/tmp/watch.txt
// make test-e2e`). `make test-e2e` lists into $GUICHET_CI_REPORTS/e2e-watch.txt
// and fails the test (GUICHET_E2E_WATCH=fail, its default since session 22;
// issue 32, docs/ci.md); a file run alone with node --test and neither
// variable set does neither.
import { appendFileSync } from 'node:fs';

/**
 * @param {string} kind CLS or FOCUS
 * @param {string} test the test's name
 * @param {string[]} lines what was seen
 * @param {string} title the failure's first line
 */
export function verdict(kind, test, lines, title) {
  const report = process.env.GUICHET_E2E_WATCH_REPORT;
  if (report) appendFileSync(report, lines.map((l) => `${kind} [${test}] ${l}\n`).join(''));
  if (process.env.GUICHET_E2E_WATCH === 'fail') throw new Error(`${title}:\n  ${lines.join('\n  ')}`);
}
