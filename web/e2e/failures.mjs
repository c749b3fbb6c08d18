// A node:test reporter that writes each failed browser test: its file, its
// name with the suites around it, and the first lines of its error. `make
// test-e2e` adds it beside the TAP reporter, writing to GUICHET_CI_REPORTS
// (or TMPDIR), so `.ci/run` prints the failures again at its very end, where
// a reader of CI's last lines finds them (issue 27: a red run whose failure
// sat thousands of lines up in the TAP stream could not be told apart from a
// green one by its tail). A suite that failed only because a test in it did
// is not repeated.
import { relative } from 'node:path';

/** The lines of an error kept in the summary (Node's own stack frames left out). */
const errorLines = 12;

/**
 * @typedef {{ name: string; file?: string; nesting: number; details?: { error?: { failureType?: string; cause?: unknown; message?: string } } }} FailData
 * @param {AsyncIterable<{ type: string; data: FailData }>} source the runner's events
 * @returns {AsyncGenerator<string, void>}
 */
export default async function* failures(source) {
  /** @type {Map<string, string[]>} the names of the suites open in each file, by nesting */
  const open = new Map();
  for await (const event of source) {
    const { file, nesting, name } = event.data ?? {};
    const key = file ?? '';
    if (event.type === 'test:start') {
      const names = open.get(key) ?? [];
      names.length = nesting;
      names.push(name);
      open.set(key, names);
      continue;
    }
    if (event.type !== 'test:fail') continue;
    const error = event.data.details?.error;
    if (error?.failureType === 'subtestsFailed') continue;
    const path = [...(open.get(key) ?? []).slice(0, nesting), name].join(' › ');
    const where = file ? relative(process.cwd(), file) : '(no file)';
    yield `✖ ${where} › ${path}\n${indent(describe(error))}\n`;
  }
}

/**
 * The error's message, or its cause's (node:test wraps what a test threw).
 * @param {{ cause?: unknown; message?: string } | undefined} error
 * @returns {string}
 */
function describe(error) {
  if (!error) return 'no error given';
  const cause = error.cause;
  const text =
    cause instanceof Error
      ? (cause.stack ?? cause.message)
      : cause !== undefined
        ? String(cause)
        : (error.message ?? String(error));
  return text
    .split('\n')
    .filter((line) => !/^\s+at (?:.*[( ])?(?:node:|new Promise|Array\.|async Promise)/.test(line))
    .slice(0, errorLines)
    .join('\n');
}

/** @param {string} text */
function indent(text) {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
