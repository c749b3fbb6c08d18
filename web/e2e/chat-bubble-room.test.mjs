// Issue 32: nothing a visitor must read or press is ever under the floating
// chat bubble, on the pages a visitor meets with it, at 320, 390, 768 and
// 1280 px wide, in English and French, for two brands. Each page is scrolled
// through from its top to its end; at every position the bubble's box is
// compared with every visible control (a focusable element) and every text
// block (an element with text of its own), box by box (an inline element has
// a box per line): where they meet, what shows there with the bubble taken
// away must not be the control or the text (the bubble sits on room the page
// keeps for it, never on content). A room that hid content for good would
// pass that, so every control and text block must also show whole, on top,
// at one position of the scroll at least.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clearPageState, press, startSuite, withContext } from './harness.mjs';

const { server, browser } = await startSuite();

const DEMO_PASSWORD = 'Guichet-Demo-2026!';

/** Phone, larger phone, tablet, laptop. */
const SIZES = [
  { width: 320, height: 640 },
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1280, height: 800 },
];

/** The pages a visitor meets with the bubble (my-account apart: it needs a sign-in). */
const PAGES = [
  { name: 'login', path: '/' },
  { name: 'forgot', path: '/forgot' },
  { name: 'registration identification', path: '/registration/identification' },
  { name: 'smart registration account type', path: '/create-an-account/identification/account-type' },
  // A roadblock opens only while the flow's roadblocked flag is set (lib/flow/state.ts).
  { name: 'a roadblock', path: '/roadblock/login-difficulties' },
];

const VARIANTS = [
  { brand: 'belair', language: 'en', query: '?province=on&lang=en', email: 'demo@belair.example' },
  { brand: 'belair', language: 'fr', query: '?province=qc&lang=fr', email: 'demo@belair.example' },
  { brand: 'intact', language: 'en', query: '?province=on&lang=en', email: 'demo@intact.example' },
  { brand: 'intact', language: 'fr', query: '?province=qc&lang=fr', email: 'demo@intact.example' },
];

/**
 * Scrolls the page from its top to its end and says what the bubble hides
 * (what is under it at a position) and what never shows whole.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<string[]>}
 */
function underTheBubble(page) {
  return page.evaluate(() => {
    const bubble = document.querySelector('.chat-bubble');
    if (!bubble) return ['no chat bubble on the page'];
    const focusable =
      'a[href], button, input:not([type="hidden"]), select, textarea, summary, iframe, [tabindex]:not([tabindex="-1"]), [contenteditable]:not([contenteditable="false"])';
    /** @typedef {{ left: number; top: number; right: number; bottom: number }} Box */

    /**
     * What a person can see of a box: the box cut by every ancestor that
     * clips (overflow other than visible); null when nothing or a sliver of
     * 1 px is left (visually hidden text: a 1 px clipped box).
     * @param {DOMRect} rect
     * @param {Element} element
     * @returns {Box | null}
     */
    const seen = (rect, element) => {
      let { left, top, right, bottom } = rect;
      for (let e = element.parentElement; e && e !== document.documentElement; e = e.parentElement) {
        const style = getComputedStyle(e);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const clip = e.getBoundingClientRect();
        left = Math.max(left, clip.left);
        top = Math.max(top, clip.top);
        right = Math.min(right, clip.right);
        bottom = Math.min(bottom, clip.bottom);
      }
      return right - left > 1 && bottom - top > 1 ? { left, top, right, bottom } : null;
    };

    /** @type {{ element: Element; label: string }[]} */
    const things = [];
    for (const element of document.body.querySelectorAll('*')) {
      if (bubble.contains(element) || element.contains(bubble)) continue;
      const control = element.matches(focusable);
      const text = [...element.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
      if (!control && !text) continue;
      const name = (element.getAttribute('aria-label') || element.textContent || element.getAttribute('name') || '').trim().replace(/\s+/g, ' ').slice(0, 50);
      things.push({ element, label: `${control ? 'control' : 'text'} <${element.tagName.toLowerCase()}> «${name}»` });
    }
    /** @param {Element} element @returns {Box[]} */
    const boxes = (element) =>
      element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
        ? [...element.getClientRects()].map((r) => seen(r, element)).filter((b) => b !== null)
        : [];
    /**
     * Whether the element (or what it holds) is on top at a point, the
     * elements of `skip` taken away.
     * @param {Element} element @param {number} x @param {number} y @param {Element | null} skip
     */
    const onTop = (element, x, y, skip) => {
      const hit = document.elementsFromPoint(x, y).find((e) => !skip || !skip.contains(e));
      return hit !== undefined && element.contains(hit);
    };

    const html = document.documentElement;
    const end = Math.max(0, html.scrollHeight - innerHeight);
    const step = Math.max(1, Math.floor(innerHeight / 4));
    const positions = [];
    for (let y = 0; y < end; y += step) positions.push(y);
    positions.push(end);
    /** @type {Map<number, number>} a thing under the bubble, and the first scroll position where it is */
    const under = new Map();
    /** @type {Set<number>} things shown whole and on top at a position */
    const whole = new Set();
    /** @type {Set<number>} things no scroll can bring into view (a skip link above the page) or taller than half the screen */
    const exempt = new Set();
    for (const y of positions) {
      window.scrollTo({ top: y, left: 0, behavior: 'instant' });
      const b = bubble.getBoundingClientRect();
      things.forEach(({ element }, i) => {
        for (const box of boxes(element)) {
          const pageTop = box.top + scrollY;
          if (box.bottom + scrollY <= 0 || box.right <= 0 || pageTop >= html.scrollHeight || box.bottom - box.top > innerHeight / 2) exempt.add(i);
          // Where the box meets the bubble: a point every 4 px, none on top.
          const left = Math.max(box.left, b.left) + 0.5;
          const top = Math.max(box.top, b.top) + 0.5;
          const right = Math.min(box.right, b.right) - 0.5;
          const bottom = Math.min(box.bottom, b.bottom) - 0.5;
          for (let x = left; x <= right && !under.has(i); x += 4) {
            for (let yy = top; yy <= bottom; yy += 4) {
              if (onTop(element, x, yy, bubble)) {
                under.set(i, y);
                break;
              }
            }
          }
          // Whole and on top: its middle and the middles of its four sides,
          // 2 px in (a corner may be cut off by a rounded border).
          if (box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= html.clientWidth) {
            const inX = Math.min(2, (box.right - box.left) / 4);
            const inY = Math.min(2, (box.bottom - box.top) / 4);
            const midX = (box.left + box.right) / 2;
            const midY = (box.top + box.bottom) / 2;
            const points = [
              [midX, midY],
              [box.left + inX, midY],
              [box.right - inX, midY],
              [midX, box.top + inY],
              [midX, box.bottom - inY],
            ];
            if (points.every(([x, yy]) => onTop(element, x, yy, null))) whole.add(i);
          }
        }
      });
    }
    window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
    const problems = [];
    for (const [i, y] of under) problems.push(`${things[i].label} is under the bubble (scrolled to ${y} of ${end} px)`);
    things.forEach(({ element, label }, i) => {
      if (!whole.has(i) && !exempt.has(i) && boxes(element).length > 0) problems.push(`${label} never shows whole`);
    });
    return problems;
  });
}

/**
 * Checks the page at each size: laid out again, then scrolled through.
 * @param {import('playwright-core').Page} page
 * @param {string} where
 * @param {string[]} failures
 */
async function checkSizes(page, where, failures) {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    // Two frames: the new width's layout is done and painted.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    for (const problem of await underTheBubble(page)) failures.push(`${where} at ${size.width} × ${size.height}: ${problem}`);
  }
}

describe('the chat bubble covers nothing a visitor must read or press', () => {
  for (const { brand, language, query, email } of VARIANTS) {
    test(`${brand} ${language}`, () =>
      withContext(browser, { viewport: SIZES[0] }, async (page) => {
        const fr = language === 'fr';
        /** @type {string[]} */
        const failures = [];
        for (const { name, path } of PAGES) {
          if (page.url().startsWith('http')) await clearPageState(page);
          if (path.startsWith('/roadblock/')) {
            await page.goto(server.url(brand, `/not-found${query}`));
            await page.evaluate(() => sessionStorage.setItem('guichet.flow', JSON.stringify({ roadblocked: true })));
          }
          await page.goto(server.url(brand, path + query));
          await page.getByRole('heading', { level: 1 }).waitFor();
          await page.waitForLoadState('networkidle');
          assert.equal(new URL(page.url()).pathname, path, `${name} opens (no redirect)`);
          assert.equal(await page.locator('html').getAttribute('lang'), language);
          await checkSizes(page, `${brand} ${language} ${name}`, failures);
        }

        // My account, signed in.
        await clearPageState(page);
        await page.setViewportSize(SIZES[0]);
        await page.goto(server.url(brand, `/${query}`));
        await page.getByLabel(fr ? 'Adresse courriel' : 'Email address').fill(email);
        await page.getByLabel(fr ? 'Mot de passe' : 'Password', { exact: true }).fill(DEMO_PASSWORD);
        await press(page, page.getByRole('button', { name: fr ? 'Se connecter' : 'Sign in', exact: true }));
        await page.waitForURL(server.url(brand, '/my-account'));
        await page.getByRole('table').waitFor();
        await page.waitForLoadState('networkidle');
        await checkSizes(page, `${brand} ${language} my-account`, failures);

        assert.deepEqual(failures, []);
      }));
  }
});
