// Every screen of the SPA at 320 px, the narrowest phone in use (WCAG 1.4.10
// reflow), in both languages: nothing may scroll sideways or stick out.
// narrow-belair.test.mjs and narrow-intact.test.mjs run it for a brand each,
// so the browser test runner can run the two files side by side.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { checkA11y, clearPageState, expectNoSidewaysScroll, launchBrowser, PHONE_320, press, repoRoot, startServer, withContext } from './harness.mjs';

const DEMO_PASSWORD = 'Guichet-Demo-2026!';
/** How many screens are checked at once (each in its own browser context). */
const PAGES_AT_ONCE = 3;

/** @type {import('./harness.mjs').Server} */
let server;
/** @type {import('playwright-core').Browser} */
let browser;
/** @type {string[]} the SPA's paths, /my-account and the roadblocks apart */
let paths;

/**
 * The flow state of a recovery under way (lib/flow/state.ts,
 * lib/flow/reset-state.ts), so /verify, /reset and the roadblocks show
 * their own content instead of redirecting to login.
 */
const flow = {
  roadblocked: true,
  resetPassword: {
    id: 'narrow-test',
    email: 'alexandra.martin-tremblay@belairdirect-example.com',
    emailResetPWD: 'alexandra.martin-tremblay@belairdirect-example.com',
    temp: null,
    isTempPWD: false,
    validationId: 'narrow-test',
    resetPasswordId: null,
  },
};
const progress = { verifyFrom: '/forgot', resends: 0, token: 'narrow-test', ubiDriver: false };


/**
 * The server and the browser of a test file's 320 px suites: started before
 * its tests, stopped after them. Call once, at the file's top level.
 */
export function narrowServer() {
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    const spa = JSON.parse(await readFile(`${repoRoot}web/src/app/paths.json`, 'utf8')).paths;
    const source = await readFile(`${repoRoot}web/src/lib/flow/roadblocks.ts`, 'utf8');
    const block = /ROADBLOCK_PAGES = \[([^\]]*)\]/.exec(source)?.[1] ?? '';
    const roadblocks = [...block.matchAll(/'([a-z-]+)'/g)].map((m) => `/roadblock/${m[1]}`);
    assert.ok(roadblocks.length > 10, 'the roadblock pages are read from roadblocks.ts');
    paths = [...spa.filter((/** @type {string} */ p) => p !== '/my-account' && p !== '/roadblock/:page'), ...roadblocks];
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });
}

/**
 * The 320 px tests of a brand in a language: call it in a describe() of the
 * test file (e2e/file-times.mjs counts a suite's time for the file that
 * declares it), after narrowServer().
 * @param {{ brand: string; language: string; query: string; email: string }} variant
 */
export function narrowTests({ brand, language, query, email }) {
  test('every screen fits the width and passes axe', async () => {
    /** @type {string[]} */
    const failures = [];
    /**
     * Checks one screen in a worker's page: the state a fresh context
     * would have (no cookies, no storage but the flow state the init
     * script sets) is restored before each load, and the page, its
     * renderer and the browser's cache are kept (issue 27: a context
     * per screen started two renderer processes each time).
     * @param {import('playwright-core').Page} page
     * @param {string} path
     */
    const check = async (page, path) => {
      // The storage cleared is the brand's: every screen stays on it.
      if (page.url().startsWith('http')) {
        assert.equal(new URL(page.url()).origin, new URL(server.url(brand)).origin, `a screen before ${path} left the brand's host`);
      }
      await clearPageState(page);
      await page.goto(server.url(brand, path + query));
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      assert.equal(await page.locator('html').getAttribute('lang'), language);
      try {
        await expectNoSidewaysScroll(page, `${path} (${new URL(page.url()).pathname})`);
        await checkA11y(page);
      } catch (error) {
        failures.push(String(/** @type {Error} */ (error).message));
      }
    };
    // A page mostly waits (its loads, the network going idle): a few
    // pages at a time, each in its own context, keep the browser busy.
    const queue = [...paths];
    await Promise.all(
      Array.from({ length: PAGES_AT_ONCE }, () =>
        withContext(browser, PHONE_320, async (page, context) => {
          await context.addInitScript(
            ([f, p]) => {
              if (!sessionStorage.getItem('guichet.flow')) sessionStorage.setItem('guichet.flow', JSON.stringify(f));
              if (!sessionStorage.getItem('guichet.reset')) sessionStorage.setItem('guichet.reset', JSON.stringify(p));
            },
            [flow, progress],
          );
          for (let path = queue.shift(); path !== undefined; path = queue.shift()) await check(page, path);
        }),
      ),
    );
    assert.deepEqual(failures.sort(), []);
  });

  test('/my-account of a signed-in demo policyholder', () =>
    withContext(browser, PHONE_320, async (page) => {
      await page.goto(server.url(brand, `/${query}`));
      await page.getByRole('heading', { level: 1 }).waitFor();
      const fr = language === 'fr';
      await page.getByLabel(fr ? 'Adresse courriel' : 'Email address').fill(email);
      await page.getByLabel(fr ? 'Mot de passe' : 'Password', { exact: true }).fill(DEMO_PASSWORD);
      await press(page, page.getByRole('button', { name: fr ? 'Se connecter' : 'Sign in', exact: true }));
      await page.waitForURL(server.url(brand, '/my-account'));
      await page.getByText(email, { exact: true }).waitFor();
      await page.getByRole('table').waitFor();
      await expectNoSidewaysScroll(page, '/my-account');
      // A policy number is one unbreakable line.
      const numbers = page.getByRole('table').getByRole('cell').locator('.my-account__policy-number');
      assert.ok((await numbers.count()) > 0);
      for (const number of await numbers.all()) {
        // An inline box has one client rect per line it spans.
        const lines = await number.evaluate((span) => span.getClientRects().length);
        assert.equal(lines, 1, `policy number ${await number.textContent()} fits on one line`);
      }
      await checkA11y(page);
    }));
}
