// What a browser test pays per screen on this machine, in CPU-seconds of
// the whole machine (/proc/stat; Chromium's processes included): a fresh
// context per screen, against one page kept and reloaded, and axe run the
// two ways of e2e/harness.mjs checkA11y (issue 27, docs/ci.md).
// Usage (from web/): node bench/browser-costs.mjs URL [SCREENS]
import { readFileSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { launchBrowser } from '../e2e/harness.mjs';

const url = process.argv[2];
const screens = Number(process.argv[3] ?? 10);
if (!url) throw new Error('usage: node bench/browser-costs.mjs URL [SCREENS]');

/** Busy CPU ticks of the machine. */
const busy = () => {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  return (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0);
};
const viewport = { width: 320, height: 640 };
const browser = await launchBrowser();

/**
 * @param {string} name
 * @param {(page: import('playwright-core').Page) => Promise<void>} after what is done after the load
 * @param {'context' | 'page' | 'none'} fresh what is new for each screen: a context, a page in one kept context, nothing (one page kept)
 */
async function measure(name, after, fresh) {
  const before = busy();
  const kept = fresh === 'context' ? null : await browser.newContext({ viewport });
  let page = fresh === 'none' && kept ? await kept.newPage() : null;
  for (let i = 0; i < screens; i++) {
    const context = kept ?? (await browser.newContext({ viewport }));
    if (fresh !== 'none') page = await context.newPage();
    if (!page) throw new Error('no page');
    await page.goto(`${url}${url.includes('?') ? '&' : '?'}screen=${i}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await after(page);
    if (fresh === 'context') await context.close();
    else if (fresh === 'page') await page.close();
  }
  await kept?.close();
  const perScreen = (busy() - before) / 100 / screens;
  console.log(`  ${name.padEnd(52)} ${perScreen.toFixed(2)} CPU-s per screen`);
}

const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const nothing = async () => {};
console.log(`== browser test costs per screen (${browser.version()}, ${screens} screens each)`);
await measure('fresh context, load', nothing, 'context');
await measure('one context kept, a new page, load', nothing, 'page');
await measure('one page kept, load', nothing, 'none');
await measure('one page kept, load, axe in the page (legacy mode)', (page) => new AxeBuilder({ page }).withTags(tags).setLegacyMode(true).analyze().then(nothing), 'none');
await measure('one page kept, load, axe default (a blank page)', (page) => new AxeBuilder({ page }).withTags(tags).analyze().then(nothing), 'none');
await browser.close();
