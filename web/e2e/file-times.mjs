// A node:test reporter that writes one line per browser test file: the time
// its top-level tests and suites took (they run one after another within a
// file) and how many there are, slowest first. `make test-e2e` adds it beside
// the TAP reporter, writing to GUICHET_CI_REPORTS (or TMPDIR), so `.ci/run`
// can print the ten slowest files (issue 27). The durations are the
// runner's own: a file's events reach the parent in bursts, so their arrival
// times say nothing. A top-level test or suite counts for the file that
// declares it: a module shared by several test files (narrow.mjs,
// registration.mjs) leaves the describe() to each of them.
import { relative } from 'node:path';

/**
 * @typedef {{ file?: string; nesting: number; details?: { duration_ms?: number } }} TestEventData
 * @param {AsyncIterable<{ type: string; data: TestEventData }>} source the runner's events
 * @returns {AsyncGenerator<string, void>}
 */
export default async function* fileTimes(source) {
  /** @type {Map<string, { ms: number; tests: number }>} */
  const files = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file || nesting !== 0) continue;
    const entry = files.get(file) ?? { ms: 0, tests: 0 };
    entry.ms += details?.duration_ms ?? 0;
    entry.tests += 1;
    files.set(file, entry);
  }
  const rows = [...files.entries()].sort((a, b) => b[1].ms - a[1].ms);
  for (const [file, { ms, tests }] of rows) {
    yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${String(tests).padStart(3)} top-level  ${relative(process.cwd(), file)}\n`;
  }
}
