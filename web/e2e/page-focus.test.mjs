// Browser tests of issue 12's page changes: focus goes to the new page's h1
// (read out by screen readers) with the page's title, and a language or
// province chosen in the header outlives a reload whatever the address said.
// Real mouse clicks at the controls' coordinates and keys, as a person does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkA11y, codeOf, localeCookies, pathOf, press, realErrors, startSuite, typeInto, waitForMail, withOpenPage } from './harness.mjs';

const NEW_PASSWORD = 'Fresh-Start-2026#';

const { server, browser, pages } = await startSuite();

/**
 * The new page is shown, its h1 has the focus without a ring, the title
 * changed to the page's, and axe finds nothing.
 * @param {import('playwright-core').Page} page
 * @param {string} heading the h1's text
 * @param {string} previousTitle document.title of the page before
 * @returns {Promise<string>} the new document.title
 */
async function expectNewPage(page, heading, previousTitle) {
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  await page.waitForFunction(
    (name) => document.activeElement instanceof HTMLHeadingElement && document.activeElement.tagName === 'H1' && document.activeElement.textContent === name,
    heading,
  );
  const focused = await page.evaluate(() => {
    const h1 = /** @type {HTMLElement} */ (document.activeElement);
    return { tabIndex: h1.tabIndex, outline: getComputedStyle(h1).outlineStyle, title: document.title };
  });
  assert.equal(focused.tabIndex, -1, `${heading}: focusable by script only`);
  assert.equal(focused.outline, 'none', `${heading}: no focus ring`);
  assert.notEqual(focused.title, previousTitle, `${heading}: the title changed`);
  assert.ok(focused.title.startsWith(`${heading} | `), `${heading}: title ${focused.title}`);
  await checkA11y(page);
  return focused.title;
}

test('login → forgot → verify → reset → my-account: focus on each new page’s h1, its title announced', () =>
  withOpenPage(browser, server.url('belair', '/'), { cookies: localeCookies('on', 'en') }, async ({ page, errors }) => {
    const email = 'demo@belair.example';
    // The first page of a visit keeps the browser's focus (the skip link comes first).
    let title = await page.title();
    assert.equal(await page.evaluate(() => document.activeElement === document.body), true);

    await press(page, page.getByRole('link', { name: 'Forgot your password?' }));
    title = await expectNewPage(page, 'Forgot your password?', title);

    await typeInto(page, page.getByLabel('Email address'), email);
    await page.keyboard.press('Enter'); // by keyboard: no ring either
    title = await expectNewPage(page, 'Enter your security code', title);

    await typeInto(page, page.getByLabel('Security code', { exact: true }), codeOf(await waitForMail(server, email, 'reset-code')));
    await press(page, page.getByRole('button', { name: 'Continue' }));
    title = await expectNewPage(page, 'Choose a new password', title);
    assert.equal(pathOf(page), '/reset');

    await typeInto(page, page.getByLabel('Postal code'), 'M5V 2T6');
    await typeInto(page, page.getByLabel('New password', { exact: true }), NEW_PASSWORD);
    await typeInto(page, page.getByLabel('Confirm your new password'), NEW_PASSWORD);
    await press(page, page.getByRole('button', { name: 'Save my new password' }));
    // The SSO form post loads /my-account as a new document: it continues
    // the journey, so its h1 takes the focus too.
    await page.waitForURL(server.url('belair', '/my-account'));
    await expectNewPage(page, 'My account', title);
    assert.deepEqual(realErrors(errors), []);
  }));

test('a roadblock, in French: focus on its title, without the ring it showed before', () =>
  withOpenPage(browser, server.url('intact', '/forgot'), { cookies: localeCookies('qc', 'fr') }, async ({ context, page, errors }) => {
    const email = 'demo@intact.example';
    // The lowest attempt limit (3 wrong codes).
    await context.addInitScript(() => Object.assign(Math, { random: () => 0 }));
    await page.reload();
    let title = await page.title();
    await typeInto(page, page.getByLabel('Adresse courriel'), email);
    await press(page, page.getByRole('button', { name: 'M’envoyer un code' }));
    title = await expectNewPage(page, 'Entrez votre code de sécurité', title);
    const code = codeOf(await waitForMail(server, email, 'reset-code'));
    for (let i = 1; i <= 3; i++) {
      const wrong = String((Number(code) + i) % 1_000_000).padStart(6, '0');
      await typeInto(page, page.getByLabel('Code de sécurité', { exact: true }), wrong);
      await page.keyboard.press('Enter');
      if (i < 3) await page.getByRole('alert').filter({ hasText: 'Le code de sécurité est incorrect' }).waitFor();
    }
    await page.waitForURL(/\/roadblock\/resend-code$/);
    const heading = await page.getByRole('heading', { level: 1 }).textContent();
    assert.ok(heading);
    await expectNewPage(page, heading, title);
    assert.deepEqual(realErrors(errors), []);
  }));

test('French and Québec chosen in the header outlive a reload of /?lang=en&province=on, and the address says so', async () => {
  const { page, errors } = await pages.open(server.url('belair', '/?lang=en&province=on&utm_source=x'));
  await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
  // The province list by keyboard, as a person who tabs to it does.
  const province = page.getByRole('combobox', { name: 'Province' });
  await press(page, province);
  await page.keyboard.press('Escape');
  await page.keyboard.type('Qu');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('province') === 'qc');
  await press(page, page.getByRole('button', { name: 'Français' }));
  await page.getByRole('heading', { level: 1, name: 'Connectez-vous à votre compte' }).waitFor();
  const address = new URL(page.url());
  assert.equal(address.pathname, '/');
  assert.deepEqual([...address.searchParams], [
    ['lang', 'fr'],
    ['province', 'qc'],
    ['utm_source', 'x'],
  ]);

  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Connectez-vous à votre compte' }).waitFor();
  assert.equal(await page.locator('html').getAttribute('lang'), 'fr');
  assert.equal(await page.getByRole('combobox', { name: 'Province' }).inputValue(), 'qc');
  assert.equal(new URL(page.url()).search, '?lang=fr&province=qc&utm_source=x');
  await checkA11y(page);
  assert.deepEqual(realErrors(errors), []);
});
