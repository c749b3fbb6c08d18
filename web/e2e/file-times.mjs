// A node:test reporter that writes one line per browser test file: the wall
// time from its first test's start to its last test's end, and its test
// count, slowest first. `make test-e2e` adds it beside the TAP reporter when
// GUICHET_CI_REPORTS names a folder, so `.ci/run` can print the ten slowest
// files (issue 27).
import { relative } from 'node:path';

/**
 * @typedef {{ file?: string; nesting: number; details?: { duration_ms?: number } }} TestEventData
 * @param {AsyncIterable<{ type: string; data: TestEventData }>} source the runner's events
 * @returns {AsyncGenerator<string, void>}
 */
export default async function* fileTimes(source) {
  /** @type {Map<string, { first: number; last: number; tests: number }>} */
  const files = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file || nesting !== 0) continue;
    const end = Date.now();
    const start = end - (details?.duration_ms ?? 0);
    const entry = files.get(file) ?? { first: start, last: end, tests: 0 };
    entry.first = Math.min(entry.first, start);
    entry.last = Math.max(entry.last, end);
    entry.tests += 1;
    files.set(file, entry);
  }
  const rows = [...files.entries()].sort((a, b) => b[1].last - b[1].first - (a[1].last - a[1].first));
  for (const [file, { first, last, tests }] of rows) {
    yield `${((last - first) / 1000).toFixed(1).padStart(7)} s  ${String(tests).padStart(3)} tests  ${relative(process.cwd(), file)}\n`;
  }
}
