// The harness's focus watch (focus-watch.mjs) sees an action that drops the
// focus to <body>, and only that: a watch that saw nothing would pass every
// flow of every other file (issue 32).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser } from './harness.mjs';
import { takeFocusDrops } from './focus-watch.mjs';

/** @type {import('playwright-core').Browser} */
let browser;

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

// "Remove" takes itself away; "Move" gives the focus to the heading before
// it goes; "Disable" disables itself. Plain text to click on, and a field.
const page = `<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<h1 tabindex="-1">Focus</h1><p id="text">Plain text.</p><input aria-label="Field">
<button id="remove">Remove</button><button id="move">Move</button><button id="disable">Disable</button>
<script>
  document.getElementById('remove').onclick = (e) => e.target.remove();
  document.getElementById('move').onclick = (e) => { document.querySelector('h1').focus(); e.target.remove(); };
  document.getElementById('disable').onclick = (e) => { e.target.disabled = true; };
</script></main></body></html>`;

/** @param {(tab: import('playwright-core').Page) => Promise<void>} act */
async function dropsOf(act) {
  const context = await browser.newContext();
  try {
    await context.route('http://focus.localhost/', (route) => route.fulfill({ contentType: 'text/html', body: page }));
    const tab = await context.newPage();
    await tab.goto('http://focus.localhost/');
    await act(tab);
    // The report crosses from the page by a binding: one more round trip.
    await tab.evaluate(() => 0);
    return takeFocusDrops();
  } finally {
    await context.close();
  }
}

test('a pressed button that takes itself away, then a Tab: reported, naming the button', async () => {
  const drops = await dropsOf(async (tab) => {
    await tab.getByRole('button', { name: 'Remove' }).click();
    await tab.keyboard.press('Tab');
  });
  assert.equal(drops.length, 1, JSON.stringify(drops));
  assert.match(drops[0].lost, /button#remove "Remove"/);
  assert.equal(drops[0].on, 'key Tab');
});

test('a button that disables itself, then a click elsewhere: reported', async () => {
  const drops = await dropsOf(async (tab) => {
    await tab.getByRole('button', { name: 'Disable' }).click();
    await tab.getByRole('textbox', { name: 'Field' }).click();
  });
  assert.equal(drops.length, 1, JSON.stringify(drops));
  assert.equal(drops[0].on, 'pointer');
});

test('focus moved before the button went, or a click on plain text: not reported', async () => {
  const drops = await dropsOf(async (tab) => {
    await tab.getByRole('button', { name: 'Move', exact: true }).click();
    await tab.keyboard.press('Tab');
    await tab.getByRole('textbox', { name: 'Field' }).click();
    await tab.locator('#text').click();
    await tab.keyboard.press('Tab');
  });
  assert.deepEqual(drops, []);
});
