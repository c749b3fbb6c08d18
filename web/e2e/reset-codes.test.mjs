// Browser tests of issue 12 defects 8 and 11, as a visitor meets them, with
// the mouse (clicks at the controls' coordinates) and the keyboard:
// - wrong reset codes warn before the resend-code roadblock, which offers
//   'Send me a new code' besides calling; the new code, read from the dev
//   mailbox, completes the reset;
// - the token-expired page, reached with a used emailed link, does what it
//   says: a new link by email when it knows the account, otherwise it says
//   its button leads to /forgot for a new code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkA11y, codeOf, pathOf, press, realErrors, seenMail, siteConfig, startSuite, typeInto, waitForMail } from './harness.mjs';

const NEW_PASSWORD = 'Fresh-Start-2026#';
const POSTAL_CODES = { on: 'M5V 2T6', ab: 'T2P 1J9' };
const WRONG = 'The security code is incorrect. Try again.';

const { server, browser, pages } = await startSuite();

/**
 * The form's alert on /verify says exactly this.
 * @param {import('playwright-core').Page} page
 * @param {string} message
 */
async function alertSays(page, message) {
  await page.getByRole('alert').filter({ hasText: message }).waitFor();
  const texts = await page.locator('form [role="alert"]').allTextContents();
  assert.ok(texts.includes(message), `the alert says "${message}": ${JSON.stringify(texts)}`);
}

/**
 * A code typed on /verify and sent with the mouse.
 * @param {import('playwright-core').Page} page
 * @param {string} code
 */
async function sendCode(page, code) {
  await typeInto(page, page.getByLabel('Security code', { exact: true }), code);
  await press(page, page.getByRole('button', { name: 'Continue' }));
}

/**
 * /forgot: the email typed, 'Send me a code' clicked; lands on /verify.
 * @param {import('playwright-core').Page} page
 * @param {string} email
 */
async function askForCode(page, email) {
  await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
  await typeInto(page, page.getByLabel('Email address'), email);
  await press(page, page.getByRole('button', { name: 'Send me a code' }));
  await page.getByRole('heading', { level: 1, name: 'Enter your security code' }).waitFor();
  assert.equal(pathOf(page), '/verify');
}

test('wrong codes: a warning from the second, then the roadblock sends a new code that completes the reset', async () => {
  const email = 'demo@belair.example';
  const context = await browser.newContext();
  try {
    // The visit's random limit at its lowest: 3 wrong codes.
    await context.addInitScript(() => Object.assign(Math, { random: () => 0 }));
    const page = await context.newPage();
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(server.url('belair', '/forgot'));
    const seen = await seenMail(server, email);
    await askForCode(page, email);
    const first = codeOf(await waitForMail(server, email, 'reset-code', seen));
    const wrong = (/** @type {number} */ n) => String((Number(first) + n) % 1_000_000).padStart(6, '0');

    await sendCode(page, wrong(1));
    await alertSays(page, WRONG);
    await sendCode(page, wrong(2));
    await alertSays(page, `${WRONG} You have 1 try left.`);
    await checkA11y(page);

    await sendCode(page, wrong(3));
    await page.waitForURL(server.url('belair', '/roadblock/resend-code'));
    await page.getByRole('heading', { level: 1, name: 'Too many attempts' }).waitFor();
    await page.getByText('We can email you a new security code.').waitFor();
    await checkA11y(page);

    await press(page, page.getByRole('button', { name: 'Send me a new code' }));
    await page.waitForURL(server.url('belair', '/verify'));
    await page.getByRole('heading', { level: 1, name: 'Enter your security code' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'We’ve sent you a new code. Only the newest code works.' }).waitFor();
    await checkA11y(page);

    const fresh = codeOf(await waitForMail(server, email, 'reset-code', seen));
    await sendCode(page, fresh);
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    assert.equal(pathOf(page), '/reset');
    await checkA11y(page);

    const config = await siteConfig(page);
    await typeInto(page, page.getByLabel('Postal code'), POSTAL_CODES[/** @type {'on' | 'ab'} */ (config.brand.defaultProvince)]);
    await typeInto(page, page.getByLabel('New password', { exact: true }), NEW_PASSWORD);
    await typeInto(page, page.getByLabel('Confirm your new password'), NEW_PASSWORD);
    await press(page, page.getByRole('button', { name: 'Save my new password' }));
    await page.waitForURL(server.url('belair', '/my-account'));
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    await checkA11y(page);
    assert.deepEqual(realErrors(errors), []);
  } finally {
    await context.close();
  }
});

/**
 * A RESET_PSW email's link, used once to reset the password: what a visitor
 * holds when the old email is opened again.
 * @param {string} brand
 * @param {string} email
 * @param {Set<string>} seen
 */
async function usedLink(brand, email, seen) {
  const { page } = await pages.open(server.url(brand, '/'));
  const config = await siteConfig(page);
  const sent = await page.evaluate(
    async ({ email, apiKey, province, language }) => {
      const headers = { 'Content-Type': 'application/json', 'X-API-KEY': apiKey, province: province.toUpperCase(), language };
      const found = await (await fetch('/api/v1/accounts/find', { method: 'POST', headers, body: JSON.stringify({ email }) })).json();
      const body = JSON.stringify({ mediumType: 'EMAIL', notificationType: 'RESET_PSW' });
      return (await fetch(`/api/v1/accounts/${found.id}/notification`, { method: 'POST', headers, body })).status;
    },
    { email, apiKey: config.brand.apiKey, province: config.province, language: config.language },
  );
  assert.equal(sent, 200);
  const link = /https?:\/\/\S+\/reset\?token=[^\s"<]+/.exec((await waitForMail(server, email, 'reset-link', seen)).text)?.[0];
  assert.ok(link, 'the email holds a /reset?token= link');
  const { pathname, search } = new URL(link);
  await page.goto(server.url(brand, pathname + search));
  await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
  await typeInto(page, page.getByLabel('Postal code'), POSTAL_CODES[/** @type {'on' | 'ab'} */ (config.brand.defaultProvince)]);
  await typeInto(page, page.getByLabel('New password', { exact: true }), NEW_PASSWORD);
  await typeInto(page, page.getByLabel('Confirm your new password'), NEW_PASSWORD);
  await press(page, page.getByRole('button', { name: 'Save my new password' }));
  await page.waitForURL(server.url(brand, '/my-account'));
  return pathname + search;
}

test('a used emailed link, opened later: token-expired says its button leads to /forgot, and a new code arrives from there', async () => {
  const email = 'demo@scotia.example';
  const seen = await seenMail(server, email);
  const link = await usedLink('scotia', email, seen);

  // A new visit: the old email opened again.
  const { page, errors } = await pages.open(server.url('scotia', link));
  await page.waitForURL(server.url('scotia', '/roadblock/token-expired'));
  await page.getByRole('heading', { level: 1, name: 'This link has expired' }).waitFor();
  await page
    .getByText('The link you used is no longer valid. Enter your email address on the next page and we’ll email you a new security code.')
    .waitFor();
  assert.equal(await page.getByText('We can email you a new one.').count(), 0, 'no email is promised that the button does not send');
  await checkA11y(page);

  await press(page, page.getByRole('link', { name: 'Get a new code' }));
  await askForCode(page, email);
  await checkA11y(page);
  const mail = await waitForMail(server, email, 'reset-code', seen);
  assert.match(mail.text, /\b\d{6}\b/);
  assert.deepEqual(realErrors(errors), []);
});

test('a used emailed link opened during a recovery: token-expired emails a new link (RESET_PSW) and goes to /check-your-inbox', async () => {
  const email = 'francais@scotia.example';
  const seen = await seenMail(server, email);
  const link = await usedLink('scotia', email, seen);

  // The visitor asked for a code, then opened the old email in the same tab: the flow knows the account.
  const { page, errors } = await pages.open(server.url('scotia', '/forgot'));
  await askForCode(page, email);
  await waitForMail(server, email, 'reset-code', seen);
  await page.goto(server.url('scotia', link));
  await page.waitForURL(server.url('scotia', '/roadblock/token-expired'));
  await page.getByText('The link you used is no longer valid. We can email you a new one.').waitFor();
  await checkA11y(page);

  await press(page, page.getByRole('button', { name: 'Send me a new link' }));
  await page.waitForURL(server.url('scotia', '/check-your-inbox'));
  await page.getByRole('heading', { level: 1, name: 'Check your inbox' }).waitFor();
  await checkA11y(page);
  const mail = await waitForMail(server, email, 'reset-link', seen);
  assert.match(mail.text, /\/reset\?token=/);
  assert.deepEqual(realErrors(errors), []);
});
