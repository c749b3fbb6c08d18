// Issue 32: the staff console on a phone and on a laptop, against the built
// binary. Supervisors check figures on phones: every page of the console an
// admin reaches by its nav, and a customer's page, at 320 px, nothing
// scrolls sideways and axe finds nothing. Agents work on laptops: at
// 1280 × 800 the chat page shows the queue, the conversation and its
// composer at once, without a page scroll; a long transcript scrolls in its
// own panel. The server's clock is a Wednesday at 15:00 in Toronto (chat
// open by the hours).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrive, checkA11y, expectNoSidewaysScroll, PHONE_320, realErrors, siteConfig, startSuite, withContext } from './harness.mjs';
import { consoleEn as en, signInStaff } from './staff.mjs';
import { codes } from './totp.mjs';

const { server, browser } = await startSuite({ env: { GUICHET_DEV_NOW: '2026-11-25T15:00:00-05:00' } });
const origin = `http://console.localhost:${server.port}`;

/**
 * A message with its {placeholders} filled.
 * @param {string} key
 * @param {Record<string, string>} [params]
 */
const m = (key, params = {}) => en[key].replace(/\{(\w+)\}/g, (_, name) => String(params[name]));

/**
 * Records a page's errors.
 * @param {import('playwright-core').Page} page
 */
function errorsOf(page) {
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

/**
 * A page the console just went to: its h1 takes the focus once it is there
 * (whatever its title: a customer's page is titled with the name), then
 * arrive's checks (sideways scroll, axe).
 * @param {import('playwright-core').Page} page
 */
async function arriveAtNext(page) {
  await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
  await page.waitForLoadState('networkidle');
  await arrive(page, (await page.locator('h1').textContent()) ?? '');
}

test('every console page at 320 px: no sideways scroll, axe', () =>
  withContext(browser, PHONE_320, async (page) => {
    const errors = errorsOf(page);
    await page.goto(`${origin}/sign-in`);
    await signInStaff(page, 'admin@console.example', codes('GUICHETADMINDEVTOTPSECRETAAAAAAA'), { focus: false });
    const nav = page.getByRole('navigation', { name: en['console.nav.label'] });
    const links = await nav.getByRole('link').evaluateAll((as) => as.map((a) => [a.textContent ?? '', a.getAttribute('href') ?? '']));
    assert.ok(links.length >= 10, `the admin's nav has every page: ${links.join(', ')}`);
    // The search page (the nav's first) was checked on arrival.
    for (const [name, href] of links.slice(1)) {
      await nav.getByRole('link', { name, exact: true }).click();
      await page.waitForURL(`${origin}${href}`);
      await arriveAtNext(page);
    }
    // A customer's page, from the search.
    await nav.getByRole('link', { name: en['console.nav.search'], exact: true }).click();
    await arrive(page, en['console.search.title']);
    await page.getByLabel(en['console.search.query']).fill('demo@belair.example');
    await page.getByRole('button', { name: en['console.search.submit'] }).click();
    await page.getByRole('main').getByRole('table').getByRole('link').first().click();
    await page.waitForURL(/\/customers\/[^/]+$/);
    await arriveAtNext(page);
    assert.deepEqual(realErrors(errors), []);
  }));

/**
 * A visitor of belair in Ontario who starts a chat from the portal's page
 * over the public chat API, as the widget does, and asks for a person.
 * @param {string} name
 */
async function visitorWaits(name) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url('belair', '/?province=on&lang=en'));
  await page.getByRole('heading', { level: 1 }).waitFor();
  const { brand } = await siteConfig(page);
  const status = await page.evaluate(
    async ({ apiKey, name }) => {
      const headers = { 'Content-Type': 'application/json', 'X-API-KEY': apiKey, province: 'ON', language: 'en' };
      const started = await fetch('/api/v1/chat/conversations', { method: 'POST', headers, body: JSON.stringify({ name, topic: 'Password', page: '/login' }) });
      const body = await started.json();
      if (body.status !== 'bot') return started.status;
      return (await fetch('/api/v1/chat/conversation/handover', { method: 'POST', headers })).status;
    },
    { apiKey: brand.apiKey, name },
  );
  assert.ok(status === 200 || status === 201, `${name}'s chat is in the queue (${status})`);
  return context;
}

/**
 * Whether an element's box is wholly in the viewport.
 * @param {import('playwright-core').Locator} locator
 */
const inView = (locator) => locator.evaluate((e) => {
  const box = e.getBoundingClientRect();
  return box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= document.documentElement.clientWidth;
});

test('the chat page at 1280 × 800: the queue, the conversation and the composer at once; at 320 px no sideways scroll', () =>
  withContext(browser, { viewport: { width: 1280, height: 800 } }, async (page) => {
    const errors = errorsOf(page);
    await page.goto(`${origin}/sign-in`);
    await signInStaff(page, 'agent@console.example', codes('GUICHETAGENTDEVTOTPSECRETAAAAAAA'), { focus: false });
    await page.getByRole('link', { name: en['console.nav.chat'], exact: true }).click();
    await arrive(page, en['console.chat.title']);
    await page.getByRole('radio', { name: en['console.chat.availability.available'], exact: true }).check();
    await page.getByText(m('console.chat.availability.isAvailable', { languages: `${en['console.chat.language.en']}, ${en['console.chat.language.fr']}` })).waitFor();

    const visitors = [await visitorWaits('Ana'), await visitorWaits('Ben')];
    await page.getByRole('button', { name: m('console.chat.accept', { name: 'Ben' }) }).waitFor();
    await page.getByRole('button', { name: m('console.chat.accept', { name: 'Ana' }) }).click();
    const box = page.getByRole('textbox', { name: m('console.chat.composer.label', { name: 'Ana' }) });
    await box.waitFor();
    const log = page.getByRole('log', { name: m('console.chat.transcript.label', { name: 'Ana' }) });
    const queued = page.getByRole('button', { name: m('console.chat.accept', { name: 'Ben' }) });

    // A transcript longer than its panel.
    for (let i = 1; i <= 25; i++) {
      await box.fill(`Message ${i} of a long conversation.`);
      await box.press('Enter');
    }
    await log.getByText('Message 25 of a long conversation.').waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    const page1280 = await page.evaluate(() => ({ scrollHeight: document.documentElement.scrollHeight, innerHeight }));
    assert.ok(page1280.scrollHeight <= page1280.innerHeight, `the page does not scroll (${page1280.scrollHeight} > ${page1280.innerHeight} px)`);
    for (const [what, locator] of /** @type {const} */ ([
      ['the queue (the next visitor’s Accept)', queued],
      ['the conversation', log],
      ['the composer', box],
      ['the send button', page.getByRole('button', { name: en['console.chat.composer.send'] })],
    ])) {
      assert.ok(await inView(locator), `${what} shows at 1280 × 800 without a scroll`);
    }
    assert.ok(await log.evaluate((e) => e.scrollHeight > e.clientHeight), 'the transcript scrolls in its own panel');
    await checkA11y(page);

    await page.setViewportSize(PHONE_320.viewport);
    await expectNoSidewaysScroll(page, 'the chat page with a conversation at 320 px');
    await checkA11y(page);
    assert.deepEqual(realErrors(errors), []);
    for (const context of visitors) await context.close();
  }));
