// Browser tests of password recovery (issue 6, spec §2.3, §4.4): /forgot,
// /verify and /reset against the built binary with its --dev demo accounts
// (internal/account/demo.go), reading the codes the dev mailbox received.
// Each scenario uses its own account, so the server's per-account limits
// (codes per hour, guesses per day) never meet.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkA11y, codeOf, localeCookies, mailbox, pageViews, pathOf, realErrors, seenMail, siteConfig, startSuite, waitForMail } from './harness.mjs';

const DEMO_PASSWORD = 'Guichet-Demo-2026!';
const TEMPORARY = 'Temp-Pass-2026';
const NEW_PASSWORD = 'Fresh-Start-2026#';
/** The demo phone of every account, and the postal code of the brand's default province (demo.go). */
const PHONE = '514-555-0123';
const POSTAL_CODES = { on: 'M5V 2T6', ab: 'T2P 1J9' };

/** What the visitor reads, in each language (en.json, fr.json). */
const TEXT = {
  en: {
    forgotLink: 'Forgot your password?',
    forgotTitle: 'Forgot your password?',
    email: 'Email address',
    sendCode: 'Send me a code',
    verifyTitle: 'Enter your security code',
    code: 'Security code',
    continue: 'Continue',
    resetTitle: 'Choose a new password',
    postalCode: 'Postal code',
    phone: 'Cell phone number',
    newPassword: 'New password',
    confirmation: 'Confirm your new password',
    save: 'Save my new password',
    account: 'My account',
    wrongCode: 'The security code is incorrect. Try again.',
  },
  fr: {
    forgotLink: 'Mot de passe oublié\u00a0?',
    forgotTitle: 'Mot de passe oublié\u00a0?',
    email: 'Adresse courriel',
    sendCode: 'M’envoyer un code',
    verifyTitle: 'Entrez votre code de sécurité',
    code: 'Code de sécurité',
    continue: 'Continuer',
    resetTitle: 'Choisissez un nouveau mot de passe',
    postalCode: 'Code postal',
    phone: 'Numéro de cellulaire',
    newPassword: 'Nouveau mot de passe',
    confirmation: 'Confirmez votre nouveau mot de passe',
    save: 'Enregistrer mon nouveau mot de passe',
    account: 'Mon compte',
    wrongCode: 'Le code de sécurité est incorrect. Réessayez.',
  },
};

const { server, browser, pages } = await startSuite();

/**
 * A call of the second API client (api/v1) from the page, as the SPA sends it.
 * @param {import('playwright-core').Page} page
 * @param {string} path under /api/v1
 * @param {unknown} body
 * @returns {Promise<{ status: number; data: any }>}
 */
async function apiPost(page, path, body) {
  const config = await siteConfig(page);
  return page.evaluate(
    async ({ path, body, apiKey, province, language }) => {
      const response = await fetch(`/api/v1${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-KEY': apiKey, province: province.toUpperCase(), language },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, data: text ? JSON.parse(text) : null };
    },
    { path, body, apiKey: config.brand.apiKey, province: config.province, language: config.language },
  );
}

/**
 * The sign-in API's answer to a password: find, then authentication.
 * @param {import('playwright-core').Page} page
 * @param {string} email
 * @param {string} password
 */
async function authenticationStatus(page, email, password) {
  const found = await apiPost(page, '/accounts/find', { email });
  assert.equal(found.status, 200);
  return (await apiPost(page, `/accounts/${found.data.id}/authentication`, { password })).status;
}

/**
 * The reset-password state the SPA keeps in sessionStorage (lib/flow/state.ts).
 * @param {import('playwright-core').Page} page
 */
const resetState = (page) => page.evaluate(() => JSON.parse(sessionStorage.getItem('guichet.flow') ?? '{}').resetPassword);

/**
 * From /forgot: asks for a code for the email and lands on /verify.
 * @param {import('playwright-core').Page} page
 * @param {typeof TEXT.en} text
 * @param {string} email
 */
async function askForCode(page, text, email) {
  await page.getByRole('heading', { level: 1, name: text.forgotTitle }).waitFor();
  await page.getByLabel(text.email).fill(email);
  await page.getByRole('button', { name: text.sendCode }).click();
  await page.getByRole('heading', { level: 1, name: text.verifyTitle }).waitFor();
  assert.equal(pathOf(page), '/verify');
}

/**
 * Types a code on /verify and submits it.
 * @param {import('playwright-core').Page} page
 * @param {typeof TEXT.en} text
 * @param {string} code
 */
async function submitCode(page, text, code) {
  await page.getByLabel(text.code, { exact: true }).fill(code);
  await page.getByRole('button', { name: text.continue }).click();
}

/**
 * A wrong code on /verify: the page says so and empties the field.
 * @param {import('playwright-core').Page} page
 * @param {string} code
 */
async function wrongCode(page, code) {
  await submitCode(page, TEXT.en, code);
  await page.getByRole('alert').filter({ hasText: TEXT.en.wrongCode }).waitFor();
  await page.waitForFunction(() => /** @type {HTMLInputElement | null} */ (document.querySelector('input[autocomplete="one-time-code"]'))?.value === '');
}

/**
 * Other 6-digit codes than the right one.
 * @param {string} code
 * @param {number} count
 */
const otherCodes = (code, count) =>
  Array.from({ length: count }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));

/**
 * Makes the code page's random attempt limit (3 to 6) its lowest (0) or highest (0.99).
 * @param {import('playwright-core').BrowserContext} context
 * @param {number} value
 */
const fixRandom = (context, value) => context.addInitScript((v) => Object.assign(Math, { random: () => v }), value);

describe('the whole recovery, reading the code from the dev mailbox, ending signed in', () => {
  const cases = [
    { who: 'a policyholder', language: 'en', brand: 'scotia', email: 'demo@scotia.example', proof: 'postalCode' },
    { who: 'a policyholder', language: 'fr', brand: 'bna', email: 'demo@bna.example', proof: 'postalCode' },
    { who: 'a UBI driver', language: 'en', brand: 'servus', email: 'ubi@servus.example', proof: 'phone' },
    { who: 'a UBI driver', language: 'fr', brand: 'intact', email: 'ubi@intact.example', proof: 'phone' },
  ];
  for (const { who, language, brand, email, proof } of cases) {
    test(`${who} in ${language === 'en' ? 'English' : 'French'} (${email})`, async () => {
      const text = TEXT[/** @type {'en' | 'fr'} */ (language)];
      // The visitor's choice lives in the province and language cookies, so the
      // account page the SSO redirects to (no query string) speaks it too.
      const cookies = localeCookies(language === 'fr' ? 'qc' : 'on', language);
      const { page, errors } = await pages.open(server.url(brand, '/'), { cookies });
      const config = await siteConfig(page);
      assert.equal(config.language, language);
      await page.getByRole('link', { name: text.forgotLink }).click();
      await checkA11y(page);
      const seen = await seenMail(server, email);
      await askForCode(page, text, email);
      await checkA11y(page);

      const mail = await waitForMail(server, email, 'reset-code', seen);
      await submitCode(page, text, codeOf(mail));
      await page.getByRole('heading', { level: 1, name: text.resetTitle }).waitFor();
      assert.equal(pathOf(page), '/reset');
      // A UBI driver proves it with the cell phone, a policyholder with the postal code.
      assert.equal(await page.getByLabel(text.postalCode).count(), proof === 'postalCode' ? 1 : 0);
      assert.equal(await page.getByLabel(text.phone).count(), proof === 'phone' ? 1 : 0);
      await checkA11y(page);

      if (proof === 'phone') await page.getByLabel(text.phone).fill(PHONE);
      else await page.getByLabel(text.postalCode).fill(POSTAL_CODES[/** @type {'on' | 'ab'} */ (config.brand.defaultProvince)]);
      await page.getByLabel(text.newPassword, { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel(text.confirmation).fill(NEW_PASSWORD);
      await page.getByRole('button', { name: text.save }).click();

      await page.waitForURL(server.url(brand, '/my-account'));
      await page.getByRole('heading', { level: 1, name: text.account }).waitFor();
      await page.getByText(email, { exact: true }).waitFor();
      await checkA11y(page);

      assert.equal(await authenticationStatus(page, email, DEMO_PASSWORD), 400, 'the old password no longer works');
      assert.equal(await authenticationStatus(page, email, NEW_PASSWORD), 200, 'the new one does');
      await waitForMail(server, email, 'password-changed', seen);
      assert.equal(await resetState(page), null, 'nothing of the reset is kept');
      assert.deepEqual(
        (await pageViews(page)).map((e) => e.pageCategory),
        ['account'],
        'the account page is a new document after the SSO post',
      );
      assert.deepEqual(realErrors(errors), []);
    });
  }
});

test('/forgot and /verify push pageViews of the forgot-password category; an unknown email reads the same', async () => {
  const { page } = await pages.open(server.url('belair', '/forgot'));
  await page.getByLabel(TEXT.en.email).fill('nobody@belair.example');
  await page.getByRole('button', { name: TEXT.en.sendCode }).click();
  await page.getByRole('heading', { level: 1, name: TEXT.en.verifyTitle }).waitFor();
  assert.deepEqual(
    (await pageViews(page)).map((e) => [e.path, e.pageCategory]),
    [
      ['/forgot', 'forgot-password'],
      ['/verify', 'forgot-password'],
    ],
  );
  // An unknown email gets the same page: nothing tells whether the account exists.
  await page.getByText('If an online account uses nobody@belair.example').waitFor();
});

test('a temporary password: sign-in, then /reset asks only for the new password, then /my-account', async () => {
  const email = 'temp@scotia.example';
  const { page, errors } = await pages.open(server.url('scotia', '/'));
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(TEMPORARY);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(server.url('scotia', '/reset'));
  await page.getByRole('heading', { level: 1, name: TEXT.en.resetTitle }).waitFor();
  await page.getByText('You used a temporary password.').waitFor();
  assert.equal(await page.getByLabel(TEXT.en.postalCode).count(), 0);
  assert.equal(await page.getByLabel(TEXT.en.phone).count(), 0);
  await checkA11y(page);

  // The rules of spec §5 are checked on the page first: no part of the email.
  await page.getByLabel(TEXT.en.newPassword, { exact: true }).fill('Temp-scotia-2026!');
  await page.getByLabel(TEXT.en.confirmation).fill('Temp-scotia-2026!');
  await page.getByRole('button', { name: TEXT.en.save }).click();
  await page
    .getByRole('alert', { name: 'Please correct the following errors' })
    .getByText('Your password must not contain part of your email address.')
    .waitFor();
  await checkA11y(page);

  await page.getByLabel(TEXT.en.newPassword, { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel(TEXT.en.confirmation).fill(NEW_PASSWORD);
  await page.getByRole('button', { name: TEXT.en.save }).click();
  await page.waitForURL(server.url('scotia', '/my-account'));
  await page.getByRole('heading', { level: 1, name: TEXT.en.account }).waitFor();
  await page.getByText(email, { exact: true }).waitFor();

  const found = await apiPost(page, '/accounts/find', { email });
  assert.equal(found.data.status, 'A', 'the account no longer holds a temporary password');
  assert.equal(await authenticationStatus(page, email, TEMPORARY), 400, 'the temporary password no longer works');
  assert.deepEqual(realErrors(errors), []);
});

test('wrong codes up to the limit, then the resend-code roadblock', async () => {
  const email = 'demo@belair.example';
  const context = await browser.newContext();
  try {
    await fixRandom(context, 0); // limit 3
    const page = await context.newPage();
    await page.goto(server.url('belair', '/forgot'));
    const seen = await seenMail(server, email);
    await askForCode(page, TEXT.en, email);
    const code = codeOf(await waitForMail(server, email, 'reset-code', seen));
    const [first, second, third] = otherCodes(code, 3);
    await wrongCode(page, first ?? '');
    assert.equal(pathOf(page), '/verify');
    await checkA11y(page);
    await wrongCode(page, second ?? '');
    await submitCode(page, TEXT.en, third ?? '');
    await page.waitForURL(server.url('belair', '/roadblock/resend-code'));
    await page.getByRole('heading', { level: 1, name: 'Too many attempts' }).waitFor();
    await checkA11y(page);

    // Back from the roadblock, the code page is closed.
    await page.goBack();
    await page.waitForURL(server.url('belair', '/'));
  } finally {
    await context.close();
  }
});

test('a dead code (5 wrong guesses: the server refuses it) is the resend-code roadblock, and the right code no longer works', async () => {
  const email = 'demo@intact.example';
  const context = await browser.newContext();
  try {
    await fixRandom(context, 0.99); // limit 6: the server's 5 guesses end first
    const page = await context.newPage();
    await page.goto(server.url('intact', '/forgot'));
    const seen = await seenMail(server, email);
    await askForCode(page, TEXT.en, email);
    const code = codeOf(await waitForMail(server, email, 'reset-code', seen));
    const { id, validationId } = await resetState(page);
    const guesses = otherCodes(code, 5);
    for (const guess of guesses.slice(0, 4)) await wrongCode(page, guess);
    await submitCode(page, TEXT.en, guesses[4] ?? '');
    await page.waitForURL(server.url('intact', '/roadblock/resend-code'));
    await page.getByRole('heading', { level: 1, name: 'Too many attempts' }).waitFor();

    const late = await apiPost(page, `/accounts/${id}/validations/${validationId}/`, { validationValue: code });
    assert.equal(late.status, 403);
    assert.ok(['EXCEEDED_RETRIES_CODE_ACTIVATION', 'CODE_EXPIRED'].includes(late.data.errorCode), late.data.errorCode);
  } finally {
    await context.close();
  }
});

// The spinner's minimum second is pinned with a fake clock in
// src/features/recovery/recovery.test.tsx, not timed here.
test('resends: four new codes, each with its spinner, then the resend-reset-password roadblock', async () => {
  const email = 'francais@belair.example';
  const { page, errors } = await pages.open(server.url('belair', '/forgot'));
  const seen = await seenMail(server, email);
  await askForCode(page, TEXT.en, email);
  const codes = [codeOf(await waitForMail(server, email, 'reset-code', seen))];
  const firstRequest = await resetState(page);
  for (let resend = 1; resend <= 4; resend++) {
    await page.getByRole('button', { name: 'Send a new code' }).click();
    await page.getByRole('button', { name: 'Sending a new code…' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'We’ve sent you a new code.' }).waitFor();
    await page.getByRole('button', { name: 'Send a new code' }).waitFor();
    codes.push(codeOf(await waitForMail(server, email, 'reset-code', seen)));
  }
  await checkA11y(page);
  assert.equal((await mailbox(server, email)).filter((m) => m.template === 'reset-code').length, 5);

  // Only the newest code works: the first one died with the first resend.
  const { id, validationId } = await resetState(page);
  assert.notEqual(validationId, firstRequest.validationId);
  const replaced = await apiPost(page, `/accounts/${id}/validations/${firstRequest.validationId}/`, { validationValue: codes[0] });
  assert.equal(replaced.status, 403);
  assert.equal(replaced.data.errorCode, 'CODE_EXPIRED');

  await page.getByRole('button', { name: 'Send a new code' }).click();
  await page.waitForURL(server.url('belair', '/roadblock/resend-reset-password'));
  await page.getByRole('heading', { level: 1, name: "We can't send another code" }).waitFor();
  await checkA11y(page);

  // The server refuses a fifth resend as well.
  const fifth = await apiPost(page, `/accounts/${id}/password-reset/${validationId}/resend`, {});
  assert.equal(fifth.status, 409);
  assert.equal(fifth.data.errorCode, 'RESEND_LIMIT_REACHED');
  assert.deepEqual(realErrors(errors), []);
});

test('an emailed /reset?token= link: the token leaves the address, the proof and the new password sign in', async () => {
  const email = 'demo@servus.example';
  const { page, errors } = await pages.open(server.url('servus', '/'));
  const seen = await seenMail(server, email);
  const found = await apiPost(page, '/accounts/find', { email });
  const sent = await apiPost(page, `/accounts/${found.data.id}/notification`, { mediumType: 'EMAIL', notificationType: 'RESET_PSW' });
  assert.equal(sent.status, 200);
  const link = /https?:\/\/\S+\/reset\?token=[^\s"<]+/.exec((await waitForMail(server, email, 'reset-link', seen)).text)?.[0];
  assert.ok(link, 'the email holds a /reset?token= link');
  const { pathname, search } = new URL(link);

  await page.goto(server.url('servus', pathname + search));
  await page.getByRole('heading', { level: 1, name: TEXT.en.resetTitle }).waitFor();
  assert.equal(pathOf(page), '/reset');
  await checkA11y(page);
  await page.getByLabel(TEXT.en.postalCode).fill(POSTAL_CODES.ab);
  await page.getByLabel(TEXT.en.newPassword, { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel(TEXT.en.confirmation).fill(NEW_PASSWORD);
  await page.getByRole('button', { name: TEXT.en.save }).click();
  await page.waitForURL(server.url('servus', '/my-account'));
  await page.getByRole('heading', { level: 1, name: TEXT.en.account }).waitFor();

  // The link worked once.
  await page.goto(server.url('servus', pathname + search));
  await page.waitForURL(server.url('servus', '/roadblock/token-expired'));
  await page.getByRole('heading', { level: 1, name: 'This link has expired' }).waitFor();
  await checkA11y(page);
  assert.deepEqual(realErrors(errors), []);
});

describe('opened directly, without a recovery under way', () => {
  for (const path of ['/verify', '/reset']) {
    test(`${path} redirects to /`, async () => {
      const { page, response, errors } = await pages.open(server.url('belair', path));
      assert.equal(response?.status(), 200, 'the server knows the path');
      await page.waitForURL(server.url('belair', '/'));
      await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
      assert.deepEqual(errors, []);
    });
  }
});
