// A brand is data: a sixth brand the code does not know (testdata/brands/
// acme.yaml), dropped into a brands directory beside the five of
// config/brands, is served with its own configuration, a logo drawn from
// its name and the promo image its folder carries (testdata/brands/acme/).
import assert from 'node:assert/strict';
import { copyFile, cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { checkA11y, imageLoaded, openPage, realErrors, repoRoot, siteConfig, startSuite } from './harness.mjs';

const brandsDir = await mkdtemp(join(tmpdir(), 'guichet-brands-'));
const shipped = join(repoRoot, 'config/brands');
for (const name of (await readdir(shipped)).filter((n) => n.endsWith('.yaml'))) {
  await copyFile(join(shipped, name), join(brandsDir, name));
}
await copyFile(join(repoRoot, 'testdata/brands/acme.yaml'), join(brandsDir, 'acme.yaml'));
await cp(join(repoRoot, 'testdata/brands/acme'), join(brandsDir, 'acme'), { recursive: true });
const { server, browser } = await startSuite({ brandsDir });
after(() => rm(brandsDir, { recursive: true, force: true }));

for (const language of ['en', 'fr']) {
  test(`acme.localhost serves the sixth brand (${language})`, async () => {
    const province = language === 'fr' ? 'qc' : 'on';
    const { context, page, errors } = await openPage(browser, server.url('acme', `/?province=${province}&lang=${language}`));
    try {
      const config = await siteConfig(page);
      assert.equal(config.brand.id, 'acme');
      assert.equal(config.province, province);
      assert.equal(config.language, language);
      const header = page.getByRole('banner');
      const logo = header.getByRole('img', { name: 'Acme Mutual', exact: true });
      // French pages ask for logo.fr.svg; acme has no logo file, so its name is drawn.
      assert.equal(await logo.getAttribute('src'), `/brands/acme/logo${language === 'fr' ? '.fr' : ''}.svg`);
      assert.ok(await imageLoaded(logo), 'logo loads');
      await header.getByRole('link', { name: config.brand.provinces.find((/** @type {any} */ p) => p.key === province).phone }).waitFor();
      await page.getByRole('contentinfo').getByText(`© ${new Date().getFullYear()} Acme Mutual`).waitFor();
      // The promo image comes from the brands directory (acme/promo.svg).
      const promo = page.locator('.form-aside').locator('img');
      assert.equal(await promo.getAttribute('src'), '/brands/acme/promo.svg');
      await promo.scrollIntoViewIfNeeded();
      await page.waitForFunction(() => /** @type {HTMLImageElement | null} */ (document.querySelector('.form-aside img'))?.complete);
      assert.ok(await promo.evaluate((img) => /** @type {HTMLImageElement} */ (img).naturalWidth > 0), 'promo image loads');
      // index.html names the image (issue 32: on a phone it is the page's largest element, and it no longer waits
      // for the first render), and the page shows that one download.
      assert.equal(await page.locator('head link[rel="preload"][as="image"]').getAttribute('href'), '/brands/acme/promo.svg');
      assert.equal(await page.evaluate(() => performance.getEntriesByName(new URL('/brands/acme/promo.svg', location.href).href).length), 1);
      await checkA11y(page);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

// A host that is no brand's: the unknown-site page lists every brand of the
// brands directory (the sixth too), in the language asked for, and its links
// lead to a brand's portal.
const unknownSite = {
  en: { heading: 'This address is not one of our sites', sites: 'Our insurers’ sites', signIn: 'Sign in', other: 'Français', bna: 'National Bank Insurance' },
  fr: { heading: 'Cette adresse ne correspond à aucun de nos sites', sites: 'Les sites de nos assureurs', signIn: 'Se connecter', other: 'English', bna: 'Banque Nationale Assurances' },
};
for (const language of /** @type {const} */ (['en', 'fr'])) {
  test(`unknown.localhost lists every brand's site (${language})`, async () => {
    const l = unknownSite[language];
    const { context, page, response, errors } = await openPage(browser, server.url('unknown', `/?lang=${language}`));
    try {
      assert.equal(response?.status(), 404);
      assert.equal(await page.locator('html').getAttribute('lang'), language);
      await page.getByRole('heading', { level: 1, name: l.heading }).waitFor();
      await page.getByRole('banner').getByRole('link', { name: l.other }).waitFor();
      const list = page.getByRole('main').getByRole('region', { name: l.sites }).getByRole('listitem');
      assert.equal(await list.count(), 6, 'five sample brands and acme');
      for (const name of ['belairdirect', l.bna, 'Acme Mutual']) {
        await page.getByRole('heading', { level: 3, name, exact: true }).waitFor();
      }
      // The stylesheet applied (the CSP allows it) and the logos load.
      assert.equal(await page.locator('.sites').evaluate((ul) => getComputedStyle(ul).display), 'grid');
      for (const img of await page.locator('.site__logo').all()) {
        assert.ok(await imageLoaded(img), `${await img.getAttribute('src')} loads`);
      }
      await checkA11y(page);
      // The page's own 404 is the point (its console note may come before page.url() is set).
      assert.deepEqual(realErrors(errors), []);

      const signIn = page.getByRole('link', { name: `${l.signIn} – Acme Mutual` });
      assert.equal(await signIn.getAttribute('href'), server.url('acme', `/?lang=${language}`));
      const box = await signIn.boundingBox();
      assert.ok(box);
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await page.waitForURL(server.url('acme', `/?lang=${language}`));
      assert.equal((await siteConfig(page)).brand.id, 'acme');
    } finally {
      await context.close();
    }
  });
}
