// Browser tests of the routes that need no flow (spec §2.1) against the built binary.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkA11y, pageViews, startSuite } from './harness.mjs';

const { server, pages } = await startSuite();

/** @param {string} url */
const pathAndQuery = (url) => new URL(url).pathname + new URL(url).search;

describe('redirects keep what spec §2.1 says they keep', () => {
  const cases = [
    { from: '/WAA/not-found?x=1', to: '/not-found?x=1', title: 'Page not found' },
    { from: '/registration?a=b', to: '/registration/identification?a=b', title: 'Create your online account' },
    { from: '/create-an-account/zzz', to: '/not-found', title: 'Page not found' },
  ];
  for (const { from, to, title } of cases) {
    test(`${from} -> ${to}`, async () => {
      const { page, errors } = await pages.open(server.url('intact', from));
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      assert.equal(pathAndQuery(page.url()), to);
      await page.waitForFunction(() => (/** @type {any} */ (window).dataLayer ?? []).length > 0);
      const views = await pageViews(page);
      assert.equal(views.length, 1, 'one page view, none for the redirect');
      assert.equal(views[0]?.path, new URL(to, 'http://x').pathname);
      await checkA11y(page);
      assert.deepEqual(errors, []);
    });
  }
});

test('an unknown path shows not-found with HTTP 404 and a button back to login', async () => {
  const { page, response, errors } = await pages.open(server.url('belair', '/no/such/page?q=1'));
  assert.equal(response?.status(), 404);
  await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
  assert.equal(await page.title(), 'Page not found | belairdirect');
  await checkA11y(page);
  await page.waitForFunction(() => (/** @type {any} */ (window).dataLayer ?? []).length > 0);
  assert.deepEqual(
    (await pageViews(page)).map((e) => [e.path, e.pageCategory]),
    [['/no/such/page', 'error']],
  );

  await page.getByRole('link', { name: 'Back to login' }).click();
  await page.waitForURL(server.url('belair', '/'));
  await page.waitForFunction(() => (/** @type {any} */ (window).dataLayer ?? []).length > 1);
  assert.deepEqual(
    (await pageViews(page)).map((e) => e.path),
    ['/no/such/page', '/'],
  );
  await checkA11y(page);
  assert.deepEqual(errors, []);
});

test('/not-found answers 200 in French too', async () => {
  const { page, response, errors } = await pages.open(server.url('bna', '/not-found?lang=fr'));
  assert.equal(response?.status(), 200);
  await page.getByRole('heading', { level: 1, name: 'Page introuvable' }).waitFor();
  await page.getByRole('link', { name: 'Retour à la connexion' }).waitFor();
  assert.equal(await page.locator('html').getAttribute('lang'), 'fr');
  await checkA11y(page);
  assert.deepEqual(errors, []);
});
