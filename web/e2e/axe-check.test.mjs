// The harness's accessibility check finds violations whichever way it runs
// axe (harness.mjs checkA11y: in the page itself when the page has no frame,
// the default partial runs otherwise, issue 27): a check that passed
// everything would pass every screen of every other file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { a11yStats, checkA11y, launchBrowser } from './harness.mjs';

/** @type {import('playwright-core').Browser} */
let browser;
/** @type {import('playwright-core').BrowserContext} */
let context;

before(async () => {
  browser = await launchBrowser();
  context = await browser.newContext();
});

after(async () => {
  await browser?.close();
});

const bad = '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">';
const page = (/** @type {string} */ body) =>
  `<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>Check</h1>${body}</main></body></html>`;

test('a page without frames: a violation fails the check, a clean page passes', async () => {
  const tab = await context.newPage();
  await tab.setContent(page(bad));
  assert.equal(tab.frames().length, 1);
  await assert.rejects(checkA11y(tab), /image-alt/);
  await tab.setContent(page('<p>Fine.</p>'));
  await checkA11y(tab);
  await tab.close();
});

test('a page with a frame: a violation inside the frame fails the check', async () => {
  const tab = await context.newPage();
  await tab.setContent(page(`<iframe title="inner" srcdoc='${page(bad)}'></iframe>`));
  await tab.frameLocator('iframe').locator('h1').waitFor();
  assert.equal(tab.frames().length, 2);
  // AxeBuilder leaves out a child frame it could not reach and swallows the
  // error (runPartialRecursive in @axe-core/playwright): under load (CI,
  // session 21, load average 15) it once left this frame out, and the check
  // passed. So the check is tried up to three times here; it must find the
  // frame's violation. A frame left out on a real page passes unseen: see
  // docs/ci.md ("Accessibility in frames").
  let error;
  for (let tries = 0; tries < 3 && !error; tries++) error = await checkA11y(tab).then(() => undefined, (e) => e);
  assert.match(String(error), /image-alt/);
  await tab.close();
});

test('a screen checked clean is not checked again; any change to its document, viewport or focus is', async () => {
  const tab = await context.newPage();
  const clean = page('<p>Fine.</p><button>Go</button>');
  await tab.setContent(clean);
  const { checked, skipped } = a11yStats;
  await checkA11y(tab);
  await tab.setContent(clean);
  await checkA11y(tab);
  assert.deepEqual([a11yStats.checked - checked, a11yStats.skipped - skipped], [1, 1], 'the same screen loaded again');
  await tab.setContent(page('<p>Fine!</p><button>Go</button>'));
  await checkA11y(tab);
  await tab.getByRole('button').focus();
  await checkA11y(tab);
  await tab.setViewportSize({ width: 320, height: 640 });
  await checkA11y(tab);
  assert.deepEqual([a11yStats.checked - checked, a11yStats.skipped - skipped], [4, 1], 'another text, the focus, the viewport');
  // A violation is never remembered as checked: it fails every time.
  await tab.setContent(page(bad));
  await assert.rejects(checkA11y(tab), /image-alt/);
  await assert.rejects(checkA11y(tab), /image-alt/);
  await tab.close();
});
