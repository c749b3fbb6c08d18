// Browser tests of the shell (spec §2.7, §2.8, §4.5) against the built binary.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkA11y, imageLoaded, pageViews, siteConfig, startSuite, withContext, withOpenPage } from './harness.mjs';

const { server, browser } = await startSuite();

/**
 * withOpenPage on a host's page.
 * @param {string} host
 * @param {string} path
 * @param {Parameters<typeof withOpenPage>[2]} options
 * @param {(opened: import('./harness.mjs').OpenedPage) => Promise<void>} use
 */
const open = (host, path, options, use) => withOpenPage(browser, server.url(host, path), options, use);

/**
 * @param {import('playwright-core').BrowserContext} context
 * @param {string} name
 */
async function cookie(context, name) {
  return (await context.cookies()).find((c) => c.name === name)?.value;
}

/** @param {import('playwright-core').Page} page */
async function expectOnePageView(page) {
  await page.waitForFunction(() => (/** @type {any} */ (window).dataLayer ?? []).length > 0);
  assert.equal((await pageViews(page)).length, 1);
}

const hosts = [
  { host: 'belair', id: 'belair', name: 'belairdirect' },
  { host: 'bna', id: 'bna', name: 'National Bank Insurance' },
  { host: 'nbc', id: 'bna', name: 'National Bank Insurance' },
  { host: 'intact', id: 'intact', name: 'Intact Insurance' },
  { host: 'scotia', id: 'scotia', name: 'Scotia Insurance' },
  { host: 'servus', id: 'servus', name: 'Servus Insurance' },
];

describe('every brand host shows its own logo, phone and province list', () => {
  for (const { host, id, name } of hosts) {
    test(host, () =>
      open(host, '/not-found', {}, async ({ page, errors }) => {
        const config = await siteConfig(page);
        assert.equal(config.brand.id, id);
        const header = page.getByRole('banner');
        const logo = header.getByRole('img', { name, exact: true });
        assert.equal(await logo.getAttribute('src'), `/brands/${id}/logo.svg`);
        assert.ok(await imageLoaded(logo), 'logo loads');
        const home = header.getByRole('link', { name: `${name} home page` });
        assert.equal(await home.getAttribute('href'), config.brand.links.marketing.en);

        const province = config.brand.provinces.find((/** @type {any} */ p) => p.key === config.province);
        const phone = header.getByRole('link', { name: province.phone });
        assert.match((await phone.getAttribute('href')) ?? '', /^tel:\+1\d{10}$/);

        const select = header.getByRole('combobox', { name: 'Province' });
        const menu = config.brand.provinces.filter((/** @type {any} */ p) => p.menu).map((/** @type {any} */ p) => p.key);
        assert.deepEqual(await select.locator('option').evaluateAll((os) => os.map((o) => /** @type {HTMLOptionElement} */ (o).value)), menu);
        assert.equal(await select.inputValue(), config.province);

        const footer = page.getByRole('contentinfo');
        assert.equal(await footer.getByRole('link', { name: 'Screen sharing' }).count(), config.brand.screenShare ? 1 : 0);
        await footer.getByText(`© ${new Date().getFullYear()} ${name}.`).waitFor();
        await expectOnePageView(page);
        assert.equal((await pageViews(page))[0]?.brand, id);
        await checkA11y(page);
        assert.deepEqual(errors, []);
      }));
  }
});

describe('a French page names the brand as it writes itself in French', () => {
  const french = [
    { host: 'bna', id: 'bna', name: 'Banque Nationale Assurances', english: 'National Bank Insurance', logo: '/brands/bna/logo.fr.svg' },
    { host: 'intact', id: 'intact', name: 'Intact Assurance', english: 'Intact Insurance', logo: '/brands/intact/logo.fr.svg' },
    { host: 'belair', id: 'belair', name: 'belairdirect', english: 'belairdirect', logo: '/brands/belair/logo.fr.svg' },
  ];
  for (const { host, name, english, logo } of french) {
    test(host, () =>
      open(host, '/not-found?province=qc&lang=fr', {}, async ({ page, errors }) => {
        await page.getByRole('heading', { level: 1, name: 'Page introuvable' }).waitFor();
        const header = page.getByRole('banner');
        const img = header.getByRole('img', { name, exact: true });
        assert.equal(await img.getAttribute('src'), logo);
        await page.waitForFunction((src) => {
          const i = /** @type {HTMLImageElement | null} */ (document.querySelector(`img[src="${src}"]`));
          return !!i && i.complete && i.naturalWidth > 0;
        }, logo);
        await header.getByRole('link', { name: `Page d’accueil de ${name}` }).waitFor();
        assert.equal(await page.title(), `Page introuvable | ${name}`);
        await page.getByRole('contentinfo').getByText(`© ${new Date().getFullYear()} ${name}.`).waitFor();
        if (english !== name) assert.ok(!(await page.locator('body').innerText()).includes(english), `no ${english} on the page`);
        await checkA11y(page);
        assert.deepEqual(errors, []);
      }));
  }
});

test('the SPA calls api/v1/welcome once on start with the second client headers', () =>
  withContext(browser, {}, async (page) => {
    /** @type {import('playwright-core').Request[]} */
    const calls = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/v1/welcome') calls.push(request);
    });
    await page.goto(server.url('belair', '/not-found?province=qc'));
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(calls.length, 1);
    const config = await siteConfig(page);
    const headers = calls[0]?.headers() ?? {};
    assert.equal(headers.province, 'QC');
    assert.equal(headers.language, 'fr');
    assert.equal(headers['x-api-key'], config.brand.apiKey);
    assert.equal((await calls[0]?.response())?.status(), 200);
  }));

test('province and language switching set the cookies and survive a reload', () =>
  open('belair', '/not-found?x=1', {}, async ({ context, page, errors }) => {
    const config = await siteConfig(page);
    const qc = config.brand.provinces.find((/** @type {any} */ p) => p.key === 'qc');
    // A property on window survives only if the page is not reloaded.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await page.getByRole('combobox', { name: 'Province' }).selectOption('qc');
    await page.getByRole('link', { name: qc.phone }).waitFor();
    assert.equal(await cookie(context, 'province'), 'qc');
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, '/not-found?x=1');

    await page.getByRole('button', { name: 'Français' }).click();
    await page.getByRole('heading', { level: 1, name: 'Page introuvable' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'fr');
    assert.equal(await cookie(context, 'language'), 'fr');
    assert.equal(await page.getByRole('button', { name: 'English' }).getAttribute('lang'), 'en');
    assert.equal((await pageViews(page)).length, 1, 'province and language changes are not page views');
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).sameDocument), true, 'no reload');
    await checkA11y(page);

    await page.goto(server.url('belair', '/not-found'));
    await page.getByRole('heading', { level: 1, name: 'Page introuvable' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Province' }).inputValue(), 'qc');
    assert.equal(await page.locator('html').getAttribute('lang'), 'fr');
    await page.getByRole('link', { name: qc.phone }).waitFor();
    await checkA11y(page);
    await expectOnePageView(page);
    assert.deepEqual(
      { province: (await pageViews(page))[0]?.province, language: (await pageViews(page))[0]?.language },
      { province: 'qc', language: 'fr' },
    );

    // Alberta is English only at belair: the language follows, the toggle goes.
    await page.getByRole('combobox', { name: 'Province' }).selectOption('ab');
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Français' }).count(), 0);
    assert.equal(await cookie(context, 'province'), 'ab');
    assert.equal(await cookie(context, 'language'), 'en');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Province' }).inputValue(), 'ab');
    await checkA11y(page);
    assert.deepEqual(errors, []);
  }));

describe('the language toggle shows only where the province has two languages', () => {
  const cases = [
    { host: 'belair', path: '/not-found?province=ab', shown: false },
    { host: 'servus', path: '/not-found', shown: false },
    { host: 'belair', path: '/not-found?province=on', shown: true },
    { host: 'bna', path: '/not-found?province=qc', shown: true },
  ];
  for (const { host, path, shown } of cases) {
    test(`${host} ${path}`, () =>
      open(host, path, {}, async ({ page, errors }) => {
        const language = await page.locator('html').getAttribute('lang');
        const toggle = language === 'fr' ? 'English' : 'Français';
        assert.equal(await page.getByRole('button', { name: toggle }).count(), shown ? 1 : 0);
        await checkA11y(page);
        assert.deepEqual(errors, []);
      }));
  }
});

test('webview mode (a waa- cookie) hides header and footer', () =>
  open('belair', '/not-found', { cookies: [{ name: 'waa-app', value: '1' }] }, async ({ page, errors }) => {
    assert.equal((await siteConfig(page)).webview, true);
    assert.equal(await page.getByRole('banner').count(), 0);
    assert.equal(await page.getByRole('contentinfo').count(), 0);
    await page.getByRole('main').getByRole('link', { name: 'Back to login' }).waitFor();
    await expectOnePageView(page);
    await checkA11y(page);
    assert.deepEqual(errors, []);
  }));

test('the app download links show once: in the aside where the page has it, else in the footer (issue 32)', async () => {
  for (const { path, inFooter } of [
    { path: '/', inFooter: false },
    { path: '/not-found', inFooter: true },
  ]) {
    await open('belair', path, {}, async ({ page }) => {
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      const googlePlay = page.locator('a[href*="play.google"]:visible');
      assert.equal(await googlePlay.count(), 1, `${path}: the Google Play links shown`);
      assert.equal(await page.getByRole('contentinfo').locator('a[href*="play.google"]:visible').count(), inFooter ? 1 : 0, path);
    });
  }
});

describe('layouts pass axe at each breakpoint', () => {
  const viewports = [
    { name: 'mobile', width: 375, height: 800 },
    { name: 'tablet', width: 800, height: 1000 },
    { name: 'desktop', width: 1280, height: 900 },
    { name: 'large', width: 1920, height: 1080 },
  ];
  for (const { name, width, height } of viewports) {
    test(`${name} ${width}px`, () =>
      open('scotia', '/not-found?province=qc', { viewport: { width, height } }, async ({ page, errors }) => {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `no horizontal scrolling at ${width}px (overflow ${overflow}px)`);
        await checkA11y(page);
        assert.deepEqual(errors, []);
      }));
  }
});

/**
 * The right edge of every visible control in the header, and the viewport's width.
 * @param {import('playwright-core').Page} page
 */
const headerOverflow = (page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const header = /** @type {HTMLElement} */ (document.querySelector('header'));
    const out = [...header.querySelectorAll('a, button, select, img, label')]
      .map((e) => e.getBoundingClientRect())
      .filter((b) => b.width > 1 && (b.right > width + 0.5 || b.left < -0.5));
    return out.length;
  });

/**
 * A real tap (or click) in the middle of an element.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').Locator} locator
 * @param {boolean} [touch]
 */
async function press(page, locator, touch = false) {
  const box = await locator.boundingBox();
  assert.ok(box, 'the control is shown');
  if (touch) await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
  else await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

describe('the header on phones', () => {
  // 72 px is one row of 44 px targets with its padding and border; 120 px
  // leaves room for a larger default font before the page's own content
  // (the login form) falls below a 640 px screen's fold.
  for (const host of ['belair', 'intact', 'bna', 'scotia', 'servus']) {
    test(`${host} at 320 × 640: one compact row, nothing sticks out`, () =>
      open(host, '/?province=qc&lang=fr', { viewport: { width: 320, height: 640 } }, async ({ page, errors }) => {
        const header = await page.getByRole('banner').boundingBox();
        assert.ok(header && header.height <= 120, `the header is ${header?.height} px tall`);
        assert.equal(await headerOverflow(page), 0);
        const config = await siteConfig(page);
        const province = config.brand.provinces.find((/** @type {any} */ p) => p.key === config.province);
        const phone = page.getByRole('banner').getByRole('link', { name: province.phone });
        assert.match((await phone.getAttribute('href')) ?? '', /^tel:\+1\d{10}$/);
        assert.ok(((await phone.boundingBox())?.width ?? 0) >= 44, 'the phone icon is a 44 px target');
        await checkA11y(page);
        assert.deepEqual(errors, []);
      }));
  }

  test('at 375 × 667 the login form’s Sign in button shows without scrolling', () =>
    open('belair', '/?province=on&lang=en', { viewport: { width: 375, height: 667 } }, async ({ page }) => {
      const box = await page.getByRole('button', { name: 'Sign in', exact: true }).boundingBox();
      assert.ok(box && box.y + box.height <= 667, `Sign in ends at ${box && box.y + box.height} px`);
      assert.equal(await page.evaluate(() => window.scrollY), 0);
    }));

  test('at 390 px, province and language change by tap', () =>
    withContext(browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }, async (page, context) => {
      await page.goto(server.url('belair', '/not-found?province=on&lang=en'));
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
      const menu = page.getByRole('button', { name: /^Province and language: Ontario, English/ });
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      assert.equal(await page.getByRole('combobox', { name: 'Province' }).count(), 0, 'the panel is closed');
      await press(page, menu, true);
      assert.equal(await menu.getAttribute('aria-expanded'), 'true');
      await checkA11y(page);
      assert.equal(await headerOverflow(page), 0);
      await press(page, page.getByRole('button', { name: 'Français' }), true);
      await page.getByRole('heading', { level: 1, name: 'Page introuvable' }).waitFor();
      await page.getByRole('combobox', { name: 'Province' }).selectOption('qc');
      await page.getByRole('button', { name: /^Province et langue\s: Québec, français/ }).waitFor();
      assert.equal(await cookie(context, 'province'), 'qc');
      assert.equal(await cookie(context, 'language'), 'fr');
    }));

  test('at 390 px, province and language change by keyboard, in a sensible focus order', () =>
    open('belair', '/not-found?province=on&lang=en', { viewport: { width: 390, height: 844 } }, async ({ context, page }) => {
      /** @returns {Promise<string>} the focused element's tag and accessible text */
      const focused = () => page.evaluate(() => {
        const e = /** @type {HTMLElement} */ (document.activeElement);
        return `${e.tagName.toLowerCase()} ${e.getAttribute('aria-label') ?? e.textContent?.trim() ?? ''}`;
      });
      await page.keyboard.press('Tab'); // skip link
      await page.keyboard.press('Tab');
      assert.match(await focused(), /^a belairdirect home page/);
      await page.keyboard.press('Tab');
      assert.match(await focused(), /^a .*1 833/);
      await page.keyboard.press('Tab');
      assert.match(await focused(), /^button Province and language/);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      assert.match(await focused(), /^select /);
      // A closed select takes arrow keys on chromium's Linux build.
      await page.keyboard.press('ArrowUp');
      await page.getByRole('button', { name: /^Province and language: Quebec, English/ }).waitFor();
      assert.equal(await cookie(context, 'province'), 'qc');
      await page.keyboard.press('Tab');
      assert.match(await focused(), /^button Français/);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Page introuvable' }).waitFor();
      assert.equal(await cookie(context, 'language'), 'fr');
      // Escape closes the panel and gives focus back to its button.
      await page.getByRole('button', { name: 'English' }).focus();
      await page.keyboard.press('Escape');
      const menu = page.getByRole('button', { name: /^Province et langue/ });
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      assert.equal(await menu.evaluate((e) => e === document.activeElement), true);
    }));
});
