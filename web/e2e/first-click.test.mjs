// Browser tests of issue 12 defects 1 and 9. Defect 1: after a submit with
// errors, the visitor fixes the fields and clicks (or taps) the submit button
// once, measured while the last field still has the focus: that one click must
// send the request. The mousedown blurs the field, and a blur that reflowed the
// errors above the button moved it from under the pointer before the click.
// Defect 9: after a wrong code, /verify shows the server's message only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkA11y, codeOf, pathOf, seenMail, siteConfig, startSuite, waitForMail, withContext } from './harness.mjs';

const DEMO_PASSWORD = 'Guichet-Demo-2026!';
const NEW_PASSWORD = 'Fresh-Start-2026#';
const POSTAL_CODES = { on: 'M5V 2T6', ab: 'T2P 1J9' };
const SUMMARY = 'Please correct the following errors';
const CODE_REQUIRED = 'Enter the 6-digit security code.';
const WRONG_CODE = 'The security code is incorrect. Try again.';

const { server, browser } = await startSuite();

/**
 * @typedef {object} Pointer
 * @property {string} name
 * @property {import('playwright-core').BrowserContextOptions} options
 * @property {(page: import('playwright-core').Page, x: number, y: number) => Promise<void>} press one click or one tap
 */

/** @type {Pointer[]} */
const pointers = [
  { name: 'the mouse at 1280 px', options: { viewport: { width: 1280, height: 800 } }, press: (page, x, y) => page.mouse.click(x, y) },
  {
    name: 'touch at 390 px',
    options: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
    press: (page, x, y) => page.touchscreen.tap(x, y),
  },
];

/**
 * Puts the pointer on a control (a click or a tap, as the visitor would).
 * @param {Pointer} pointer
 * @param {import('playwright-core').Locator} locator
 */
const reach = (pointer, locator) => (pointer.options.hasTouch ? locator.tap() : locator.click());

/**
 * Submits the page's form empty with its button, and waits for the error summary.
 * @param {import('playwright-core').Page} page
 * @param {Pointer} pointer
 * @param {string} button
 */
async function submitEmpty(page, pointer, button) {
  await reach(pointer, page.getByRole('button', { name: button, exact: true }));
  await page.getByRole('alert', { name: SUMMARY }).waitFor();
  await checkA11y(page);
}

/**
 * Types into each field (reached by the pointer), then presses the submit
 * button once at its centre as measured while the last field has the focus;
 * resolves the request that press sent.
 * @param {import('playwright-core').Page} page
 * @param {Pointer} pointer
 * @param {Array<[label: string, text: string]>} fields
 * @param {string} button
 * @param {RegExp} api the path of the request the form sends
 */
async function fixAndPressOnce(page, pointer, fields, button, api) {
  for (const [label, text] of fields) {
    const field = page.getByLabel(label, { exact: true });
    await reach(pointer, field);
    await page.keyboard.type(text);
  }
  const submit = page.getByRole('button', { name: button, exact: true });
  await submit.scrollIntoViewIfNeeded();
  const box = await submit.boundingBox();
  assert.ok(box, `the ${button} button is shown`);
  const last = fields.at(-1)?.[0] ?? '';
  assert.ok(await page.getByLabel(last, { exact: true }).evaluate((e) => e === document.activeElement), `${last} has the focus`);
  const sent = page.waitForRequest((r) => r.method() === 'POST' && api.test(new URL(r.url()).pathname));
  await pointer.press(page, box.x + box.width / 2, box.y + box.height / 2);
  return sent;
}

describe('one click after fixing the errors sends the form', () => {
  pointers.forEach((pointer, i) => {
    test(`sign-in with ${pointer.name}`, () =>
      withContext(browser, pointer.options, async (page) => {
        await page.goto(server.url('belair', '/'));
        await page.getByRole('heading', { level: 1 }).waitFor();
        await submitEmpty(page, pointer, 'Sign in');
        await fixAndPressOnce(
          page,
          pointer,
          [
            ['Email address', 'demo@belair.example'],
            ['Password', DEMO_PASSWORD],
          ],
          'Sign in',
          /^\/api\/v1\/accounts\/find$/,
        );
      }));

    // One visit of forgot, verify and reset per pointer, each with an account of its own.
    const brand = ['scotia', 'servus'][i] ?? 'scotia';
    test(`forgot, verify and reset with ${pointer.name} (${brand})`, async () => {
      const email = `demo@${brand}.example`;
      const context = await browser.newContext(pointer.options);
      try {
        const page = await context.newPage();
        await page.goto(server.url(brand, '/forgot'));
        await page.getByRole('heading', { level: 1 }).waitFor();
        const seen = await seenMail(server, email);

        await submitEmpty(page, pointer, 'Send me a code');
        await fixAndPressOnce(page, pointer, [['Email address', email]], 'Send me a code', /^\/api\/v1\/accounts\/password-reset$/);
        await page.getByRole('heading', { level: 1, name: 'Enter your security code' }).waitFor();

        const code = codeOf(await waitForMail(server, email, 'reset-code', seen));
        await submitEmpty(page, pointer, 'Continue');
        await fixAndPressOnce(page, pointer, [['Security code', code]], 'Continue', /^\/api\/v1\/accounts\/[^/]+\/validations\/[^/]+\/$/);
        await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
        assert.equal(pathOf(page), '/reset');

        const province = /** @type {'on' | 'ab'} */ ((await siteConfig(page)).brand.defaultProvince);
        await submitEmpty(page, pointer, 'Save my new password');
        await fixAndPressOnce(
          page,
          pointer,
          [
            ['Postal code', POSTAL_CODES[province]],
            ['New password', NEW_PASSWORD],
            ['Confirm your new password', NEW_PASSWORD],
          ],
          'Save my new password',
          /^\/api\/v1\/accounts\/[^/]+\/password$/,
        );
      } finally {
        await context.close();
      }
    });
  });
});

test('after a wrong code, /verify shows the server’s message only, even when the visitor tabs away and after a resend', async () => {
  const email = 'demo@intact.example';
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(server.url('intact', '/forgot'));
    await page.getByRole('heading', { level: 1 }).waitFor();
    const seen = await seenMail(server, email);
    await page.getByLabel('Email address').click();
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Enter your security code' }).waitFor();
    const code = codeOf(await waitForMail(server, email, 'reset-code', seen));
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');

    const field = page.getByLabel('Security code', { exact: true });
    await field.click();
    await page.keyboard.type(wrong);
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: WRONG_CODE }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('autocomplete') === 'one-time-code');
    assert.equal(await field.inputValue(), '');

    // Tabbing away from the emptied field adds no message of its own.
    await page.keyboard.press('Tab');
    assert.notEqual(await field.evaluate((e) => e === document.activeElement), true);
    await page.getByRole('alert').filter({ hasText: WRONG_CODE }).waitFor();
    assert.equal(await page.getByText(CODE_REQUIRED).count(), 0, 'no required-code message after tabbing away');
    assert.equal(await field.getAttribute('aria-invalid'), null);
    await checkA11y(page);

    // A submit of the empty field says it is required; a new code clears every message.
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert', { name: SUMMARY }).waitFor();
    await page.getByRole('button', { name: 'Send a new code' }).click();
    await page.getByRole('status').filter({ hasText: 'We’ve sent you a new code.' }).waitFor();
    assert.equal(await page.getByText(CODE_REQUIRED).count(), 0, 'no required-code message after a resend');
    assert.equal(await page.getByText(WRONG_CODE).count(), 0, 'no wrong-code message after a resend');
    assert.equal(await field.getAttribute('aria-invalid'), null);
    await checkA11y(page);

    // Tabbing through the field after the resend adds nothing either.
    await field.click();
    await page.keyboard.press('Tab');
    assert.equal(await page.getByText(CODE_REQUIRED).count(), 0, 'no required-code message after tabbing away');

    // And the newest code works.
    const fresh = codeOf(await waitForMail(server, email, 'reset-code', seen));
    await field.click();
    await page.keyboard.type(fresh);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
  } finally {
    await context.close();
  }
});
