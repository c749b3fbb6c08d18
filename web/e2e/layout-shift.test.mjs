// The harness's layout-shift watch (layout-shift.mjs) sees a shift the
// visitor did not cause, and only that: a watch that saw nothing would pass
// every page of every other file (issue 32).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser } from './harness.mjs';
import { CLS_LIMIT, takeLayoutShifts } from './layout-shift.mjs';

/** @type {import('playwright-core').Browser} */
let browser;

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

// A page whose text a late block pushes down by `push` px (of 600), `delay`
// ms after its first contentful paint (counted from the paint, not from the
// load: on a busy machine a block grown before the first paint moves
// nothing), or when the button is pressed.
const page = (/** @type {number} */ push, /** @type {number} */ delay) => `<!doctype html><html lang="en"><head><title>t</title></head>
<body style="margin:0"><main><div id="late"></div><h1>Shift</h1><p>${'Text. '.repeat(200)}</p><button>Open</button></main>
<script>
  const grow = () => { document.getElementById('late').style.height = '${push}px'; };
  ${
    delay >= 0
      ? `new PerformanceObserver((list) => {
    if (list.getEntries().some((e) => e.name === 'first-contentful-paint')) setTimeout(grow, ${delay});
  }).observe({ type: 'paint', buffered: true });`
      : ''
  }
  document.querySelector('button').addEventListener('click', () => {
    if (${delay} === -2) {
      history.pushState(null, '', '/next');
      setTimeout(grow, 600);
    } else grow();
  });
</script></body></html>`;

/**
 * Opens the page at http://shift.localhost/ (fulfilled here) and waits for
 * its shift to be reported, or not.
 * @param {string} html
 * @param {(tab: import('playwright-core').Page) => Promise<void>} [act]
 */
async function shiftsOf(html, act) {
  const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
  try {
    await context.route('http://shift.localhost/', (route) => route.fulfill({ contentType: 'text/html', body: html }));
    const tab = await context.newPage();
    await tab.goto('http://shift.localhost/');
    if (act) await act(tab);
    // The report crosses from the page by a binding: give it a frame or two
    // after the block has grown.
    await tab.waitForFunction(() => document.getElementById('late')?.offsetHeight !== 0);
    await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await tab.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    return takeLayoutShifts();
  } finally {
    await context.close();
  }
}

test('a block that pushes the page down on its own is reported, with what moved', async () => {
  const shifts = await shiftsOf(page(200, 50));
  assert.equal(shifts.length, 1, JSON.stringify(shifts));
  assert.ok(shifts[0].value > CLS_LIMIT, String(shifts[0].value));
  assert.equal(shifts[0].url, 'http://shift.localhost/');
  // Chromium names the largest boxes that moved (here the body, as all of it did).
  assert.ok(shifts[0].sources.length > 0 && !shifts[0].sources.includes('div#late'), shifts[0].sources.join());
});

test('a shift the visitor caused (a click) is not', async () => {
  const shifts = await shiftsOf(page(200, -1), (tab) => tab.getByRole('button', { name: 'Open' }).click());
  assert.deepEqual(shifts, []);
});

test('a click that leads to a new address: the new page’s own shift is reported', async () => {
  // The block grows 600 ms after the click, past Chromium's 500 ms input
  // window, on the address the click led to.
  const shifts = await shiftsOf(page(200, -2), (tab) => tab.getByRole('button', { name: 'Open' }).click());
  assert.equal(shifts.length, 1, JSON.stringify(shifts));
  assert.equal(shifts[0].url, 'http://shift.localhost/next');
});

test('a shift within the limit is not', async () => {
  // 1 px of 600 moves the text by a sliver: far below 0.02.
  const shifts = await shiftsOf(page(1, 50));
  assert.deepEqual(shifts, []);
});

test('the verdict: GUICHET_E2E_WATCH=fail fails the test; a report file lists what was seen', async () => {
  const { verdict } = await import('./watch-verdict.mjs');
  const { mkdtemp, readFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const saved = { watch: process.env.GUICHET_E2E_WATCH, report: process.env.GUICHET_E2E_WATCH_REPORT };
  const dir = await mkdtemp(join(tmpdir(), 'watch-'));
  try {
    process.env.GUICHET_E2E_WATCH = 'fail';
    delete process.env.GUICHET_E2E_WATCH_REPORT;
    assert.throws(() => verdict('CLS', 'a test', ['http://x/: 0.300 (footer)'], 'layout shift'), /layout shift:\n {2}http:\/\/x\/: 0.300/);
    delete process.env.GUICHET_E2E_WATCH;
    process.env.GUICHET_E2E_WATCH_REPORT = join(dir, 'report.txt');
    verdict('FOCUS', 'another', ['http://x/: button "Go" was gone'], 'focus');
    assert.equal(await readFile(join(dir, 'report.txt'), 'utf8'), 'FOCUS [another] http://x/: button "Go" was gone\n');
  } finally {
    const restore = (/** @type {string} */ name, /** @type {string | undefined} */ value) => {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    };
    restore('GUICHET_E2E_WATCH', saved.watch);
    restore('GUICHET_E2E_WATCH_REPORT', saved.report);
    await rm(dir, { recursive: true, force: true });
  }
});
