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
