// Issue 12, defect 3: on a phone the footer jumped when the page's chunk
// arrived (CLS 0.13 to 0.21 in Lighthouse): the shell painted first, with
// an empty main, and the page filled it later. Now index.html preloads the
// page's chunks and the first render waits for them, so the first paint
// holds the whole page. The page's scripts are held back here (a slow
// network), and the layout shifts the browser records must stay under
// Lighthouse's good mark for the target (0.02).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startSuite } from './harness.mjs';

const { server, browser } = await startSuite();

/**
 * Loads a page on a phone-sized screen with every script but the entry
 * held back 400 ms, and returns the layout shifts it recorded (none after
 * input: nothing is touched).
 * @param {string} url
 * @param {string} heading
 */
async function shiftsOf(url, heading) {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true });
  try {
    const page = await context.newPage();
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      if (!/\/assets\/index-[^/]*\.js$/.test(route.request().url())) await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await page.waitForLoadState('networkidle');
    return await page.evaluate(
      () =>
        new Promise((resolve) => {
          /** @type {{ value: number; sources: string[] }[]} */
          const shifts = [];
          new PerformanceObserver((list) => {
            for (const e of /** @type {any[]} */ (list.getEntries())) {
              shifts.push({
                value: e.value,
                sources: (e.sources ?? []).map((/** @type {any} */ s) => s.node?.nodeName + '.' + (s.node?.className ?? '')),
              });
            }
          }).observe({ type: 'layout-shift', buffered: true });
          setTimeout(() => resolve(shifts), 200);
        }),
    );
  } finally {
    await context.close();
  }
}

describe('first paint on a phone', () => {
  for (const { path, heading } of [
    { path: '/', heading: 'Sign in to your account' },
    { path: '/forgot', heading: 'Forgot your password?' },
    { path: '/?lang=fr', heading: 'Connectez-vous à votre compte' },
    // The pages "Create an account" leads to, whose texts are a message
    // section of their own (issue 32: 0.445 and 0.337 before).
    { path: '/registration/identification', heading: 'Create your online account' },
    { path: '/create-an-account/identification/account-type', heading: 'Create your online account' },
    { path: '/registration/identification?lang=fr', heading: 'Créez votre compte en ligne' },
  ]) {
    test(`${path}: nothing moves when the page's chunk arrives late (CLS ≤ 0.02)`, async () => {
      const shifts = /** @type {{ value: number; sources: string[] }[]} */ (await shiftsOf(server.url('belair', path), heading));
      const cls = shifts.reduce((sum, s) => sum + s.value, 0);
      assert.ok(cls <= 0.02, `layout shift ${cls.toFixed(3)}: ${JSON.stringify(shifts)}`);
    });
  }
});

/**
 * Opens the login page of brand in a context of its own, waits for it to
 * be whole and idle, then holds every script it asks for from then on
 * (the next page's chunk cannot arrive) until the test calls release.
 * @param {string} brand
 * @param {import('playwright-core').BrowserContextOptions} options
 * scripts.asked is a promise to take before the press: it settles once the
 * page has asked for a script (the route's handler may run after the
 * address has changed: a count read then could still be 0).
 * @param {(page: import('playwright-core').Page, scripts: { asked: () => Promise<unknown>; release: () => void }) => Promise<void>} body
 */
async function onLoginHoldingScripts(brand, options, body) {
  const context = await browser.newContext(options);
  try {
    const page = await context.newPage();
    await page.goto(server.url(brand, '/'));
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    await page.waitForLoadState('networkidle');
    /** @type {(() => void)[]} */
    const held = [];
    let open = false;
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      if (!open) await new Promise((resolve) => held.push(() => resolve(undefined)));
      await route.continue();
    });
    const release = () => {
      open = true;
      for (const letGo of held.splice(0)) letGo();
    };
    const asked = () => page.waitForRequest((request) => /\/assets\/.*\.js$/.test(new URL(request.url()).pathname));
    await body(page, { asked, release });
  } finally {
    await context.close();
  }
}

describe('a page change on a slow network', () => {
  test('the page shown stays, whole and focused, until the next one has arrived whole; then focus is on its heading', () =>
    onLoginHoldingScripts('belair', { viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true }, async (page, scripts) => {
      const link = page.getByRole('link', { name: 'Forgot your password?' });
      await link.focus();
      const asked = scripts.asked();
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/forgot');
      // Issue 32: the address moved, the chunk is held; the login page is still there, whole, with focus where it was
      // (before: an empty main, the footer jumping up, focus on <body>).
      assert.equal(await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).count(), 1);
      assert.equal(await page.getByLabel('Email address', { exact: true }).count(), 1);
      await asked; // the forgot page asked for its chunk
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Forgot your password?');
      scripts.release();
      await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1');
    }));

  // CI, session 24: on a loaded machine the login page, scrolled down to its
  // "Create an account" link on a laptop's screen (the footer in view), was
  // swapped for the taller registration page more than 500 ms after the
  // click, and the footer's move counted (0.070). The next page's chunk is
  // held here until well past those 500 ms: however fast the machine, the
  // swap lands where Chrome counts it.
  test('a page swapped in long after the click moves nothing in view (the page left starts at its top)', () =>
    onLoginHoldingScripts('bna', { viewport: { width: 1280, height: 720 } }, async (page, scripts) => {
      const link = page.getByRole('link', { name: 'Create an account', exact: true });
      await link.scrollIntoViewIfNeeded();
      assert.ok(
        await page.evaluate(() => /** @type {HTMLElement} */ (document.querySelector('footer')).getBoundingClientRect().top < innerHeight),
        'the footer is in view before the click (the case under test)',
      );
      const box = await link.boundingBox();
      assert.ok(box);
      // The press's time on the page's own clock (the clock of the shifts' startTime), not one read before it.
      await page.evaluate(() => {
        addEventListener('pointerdown', (event) => Object.assign(window, { pressedAt: event.timeStamp }), { capture: true, once: true });
      });
      const asked = scripts.asked();
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      const clicked = await (await page.waitForFunction(() => /** @type {any} */ (window).pressedAt)).jsonValue();
      await page.waitForURL((url) => url.pathname === '/registration/identification');
      await page.waitForFunction(() => document.getElementById('main')?.getAttribute('aria-busy') === 'true');
      // Past the 500 ms Chrome forgives after an input, counted on the page's own clock.
      await page.waitForFunction((t) => performance.now() - t > 700, clicked);
      await asked; // the registration page asked for its chunk
      scripts.release();
      await page.getByRole('heading', { level: 1, name: 'Create your online account' }).waitFor();
      await page.waitForFunction(() => document.getElementById('main')?.getAttribute('aria-busy') === null);
      // Every shift the page recorded (buffered), kept until the observer has had 500 ms to hand them all over.
      const shifts = await page.evaluate(
        (t) =>
          new Promise((resolve) => {
            /** @type {{ value: number; sources: string[] }[]} */
            const counted = [];
            new PerformanceObserver((list) => {
              for (const e of /** @type {any[]} */ (list.getEntries())) {
                if (e.hadRecentInput || e.startTime <= t) continue;
                counted.push({ value: e.value, sources: (e.sources ?? []).map((/** @type {any} */ s) => s.node?.nodeName) });
              }
            }).observe({ type: 'layout-shift', buffered: true });
            setTimeout(() => resolve(counted), 500);
          }),
        clicked,
      );
      const cls = /** @type {{ value: number }[]} */ (shifts).reduce((sum, s) => sum + s.value, 0);
      assert.ok(cls <= 0.02, `layout shift ${cls.toFixed(3)}: ${JSON.stringify(shifts)}`);
    }));
});
