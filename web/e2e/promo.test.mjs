// The promo panel and app download links beside the forms (spec §1, §2.8):
// beside the form from tablet width, below it on phones, absent in webview
// mode; the image's box is reserved (no layout shift); axe clean.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkA11y, realErrors, startSuite, withOpenPage } from './harness.mjs';

const { server, browser } = await startSuite();

const desktop = { width: 1280, height: 900 };
const phone = { width: 390, height: 844 };

/**
 * The boxes of the form, of the last thing of the page before the panel, and of the panel.
 * @param {import('playwright-core').Page} page
 */
async function boxes(page) {
  const aside = page.locator('.form-aside');
  const form = page.locator('main form').first();
  const before = page.locator('main .page > :not(.form-aside):not(dialog)').last();
  const [a, f, b] = await Promise.all([aside.boundingBox(), form.boundingBox(), before.boundingBox()]);
  assert.ok(a && f && b, 'panel, form and the content before the panel are laid out');
  return { aside: a, form: f, before: b };
}

/**
 * Records layout shifts from the start (buffered) whose moved nodes are in the panel.
 * @param {import('playwright-core').Page} page
 */
function panelShifts(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        /** @type {number[]} */
        const shifts = [];
        new PerformanceObserver((list) => {
          for (const entry of /** @type {any[]} */ (list.getEntries())) {
            if (entry.sources?.some((/** @type {any} */ s) => s.node?.closest?.('.form-aside'))) shifts.push(entry.value);
          }
        }).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => resolve(shifts), 300);
      }),
  );
}

/** @param {import('playwright-core').Page} page */
async function imageLoads(page) {
  const img = page.locator('.form-aside').locator('img');
  await img.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => /** @type {HTMLImageElement | null} */ (document.querySelector('.form-aside img'))?.complete);
  assert.ok(await img.evaluate((el) => /** @type {HTMLImageElement} */ (el).naturalWidth > 0), 'promo image loads');
  // The box was reserved: 16:9 before and after the image arrived.
  const box = await img.boundingBox();
  assert.ok(box && Math.abs(box.width / box.height - 16 / 9) < 0.02, `image box ${JSON.stringify(box)} is 16:9`);
}

/**
 * The end of a panel test: the image loaded in its reserved box, nothing in
 * the panel shifted, axe passes and the page logged no error.
 * @param {import('playwright-core').Page} page
 * @param {string[]} errors
 */
async function panelSettled(page, errors) {
  await imageLoads(page);
  assert.deepEqual(await panelShifts(page), [], 'no layout shift in the panel');
  await checkA11y(page);
  assert.deepEqual(realErrors(errors), []);
}

for (const { brand, path, language, title } of [
  { brand: 'belair', path: '/', language: 'en', title: 'Your insurance in your pocket' },
  { brand: 'intact', path: '/forgot', language: 'fr', title: 'Des réclamations simplifiées' },
]) {
  const query = language === 'fr' ? '?province=qc&lang=fr' : '?province=on&lang=en';

  test(`${brand} ${path} ${language}: the panel is beside the form at 1280 px`, () =>
    withOpenPage(browser, server.url(brand, path + query), { viewport: desktop }, async ({ page, errors }) => {
      await page.locator('.form-aside').getByRole('heading', { level: 2, name: title }).waitFor();
      const { aside, form } = await boxes(page);
      assert.ok(aside.x >= form.x + form.width, `panel (x ${aside.x}) right of the form (ends at ${form.x + form.width})`);
      assert.ok(aside.y < form.y + form.height && form.y < aside.y + aside.height, 'panel and form side by side');
      await panelSettled(page, errors);
    }));

  test(`${brand} ${path} ${language}: the panel is below the form at 390 px`, () =>
    withOpenPage(browser, server.url(brand, path + query), { viewport: phone }, async ({ page, errors }) => {
      await page.locator('.form-aside').getByRole('heading', { level: 2, name: title }).waitFor();
      const { aside, form, before } = await boxes(page);
      assert.ok(aside.y >= before.y + before.height, `panel (y ${aside.y}) below the page's content (ends at ${before.y + before.height})`);
      assert.ok(aside.y >= form.y + form.height, 'panel below the form');
      assert.ok(Math.abs(aside.x - form.x) < 1, 'panel in the form column');
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'no sideways scroll');
      await panelSettled(page, errors);
    }));
}

test('the store badges lead to the brand file stores, and the panel follows the language chosen with the mouse', () =>
  withOpenPage(browser, server.url('belair', '/?province=on&lang=en'), { viewport: desktop }, async ({ page, errors }) => {
    const aside = page.locator('.form-aside');
    const config = JSON.parse((await page.locator('#guichet-site').textContent()) ?? '{}');
    assert.equal(await aside.getByRole('link', { name: 'Download on the App Store' }).getAttribute('href'), config.brand.links.appStore.en);
    assert.equal(await aside.getByRole('link', { name: 'Get it on Google Play' }).getAttribute('href'), config.brand.links.googlePlay.en);
    const toggle = await page.getByRole('banner').getByRole('button', { name: 'Français' }).boundingBox();
    assert.ok(toggle);
    await page.mouse.click(toggle.x + toggle.width / 2, toggle.y + toggle.height / 2);
    await aside.getByRole('heading', { level: 2, name: 'Votre assurance dans votre poche' }).waitFor();
    assert.equal(await aside.getByRole('link', { name: 'Télécharger dans l’App Store' }).getAttribute('href'), config.brand.links.appStore.fr);
    await aside.getByRole('link', { name: 'Disponible sur Google Play' }).waitFor();
    await checkA11y(page);
    assert.deepEqual(realErrors(errors), []);
  }));

for (const viewport of [desktop, phone]) {
  test(`webview mode at ${viewport.width} px: no panel, no store badges`, () =>
    withOpenPage(browser, server.url('belair', '/'), { viewport, cookies: [{ name: 'waa-app', value: '1' }] }, async ({ page, errors }) => {
      await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
      assert.equal(await page.locator('.form-aside').count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Download on the App Store' }).count(), 0);
      await checkA11y(page);
      assert.deepEqual(realErrors(errors), []);
    }));
}
