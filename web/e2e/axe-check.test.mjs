// The harness's accessibility check finds violations whichever way it runs
// axe (harness.mjs checkA11y: in the page itself when the page has no frame,
// the default partial runs otherwise, issue 27): a check that passed
// everything would pass every screen of every other file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkA11y, launchBrowser } from './harness.mjs';

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
  await assert.rejects(checkA11y(tab), /image-alt/);
  await tab.close();
});
