// Browser tests of the roadblocks a real server answer leads to (issue 28,
// spec §2.6, §8.1), against the built binary and its --dev demo people
// (docs/registration-demo.md): each test walks the flow as a visitor, sees
// the server's own answer (status and errorCode) and lands on the page.
// - resend-email: a fourth resend of a registration code by email (403 EXCEEDED_EMAIL_RESENDS);
// - forgot-password: the UBI link with the holder account's temporary password (403 3007);
// - two-factor: a password reset of a UBI driver with no cell phone on file (403 3006);
// - inconsistency: an invitation to another account's email for a registered person (412);
// - pin-difficulties: the fifth wrong PIN of a registration (403 EXCEEDED_RETRIES_CODE_ACTIVATION);
// - wrong-cellphone: a password reset of a UBI driver with a wrong cell phone (403 WRONG_CELLPHONE);
// - the soft roadblock lnr500160: create after the policy was cancelled since verification (400 4001);
// - technical: the same create again, the registration closed by the 4001 (409 REGISTRATION_STATE).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { arrive, checkA11y, codeOf, localeCookies, pathOf, press, realErrors, seenMail, startSuite, typeInto, waitForMail } from './harness.mjs';
import { DOB, LICENCE, NEW_PASSWORD, POSTAL, registrationMessages } from './demo.mjs';
import { codeToNewPassword } from './steps.mjs';

/** What the visitor reads, by language. */
const messages = registrationMessages();
const m = messages.en;

// A brand whose create-account button opens legacy registration.
const BRAND = 'bna';
const TEMPORARY = 'Temp-Pass-2026';

const { server, pages } = await startSuite();

/**
 * The next answer of an API path (a suffix of the URL's path), with its body.
 * @param {import('playwright-core').Page} page
 * @param {RegExp} path
 * @param {string} method
 */
async function answerOf(page, path, method = 'POST') {
  const response = await page.waitForResponse((r) => r.request().method() === method && path.test(new URL(r.url()).pathname));
  return { status: response.status(), body: await response.json().catch(() => null) };
}

/**
 * A visitor on registration identification, province on.
 * @param {'en' | 'fr'} [language]
 * @param {string} [brand]
 */
async function startRegistration(language = 'en', brand = BRAND) {
  const t = messages[language];
  const cookies = localeCookies('on', language);
  const opened = await pages.open(server.url(brand, '/'), { cookies });
  await press(opened.page, opened.page.getByRole('link', { name: t['login.createAccount'] }));
  await arrive(opened.page, t['registration.identification.title']);
  return opened;
}

/**
 * Fills identification and presses Next.
 * @param {import('playwright-core').Page} page
 * @param {{ policy: string; first: string; last: string }} person
 * @param {'en' | 'fr'} [language]
 */
async function identify(page, person, language = 'en') {
  const m = messages[language];
  await typeInto(page, page.getByLabel(m['form.policyNumber']), person.policy);
  await typeInto(page, page.getByLabel(m['form.firstName']), person.first);
  await typeInto(page, page.getByLabel(m['form.lastName']), person.last);
  await typeInto(page, page.getByLabel(m['form.day'], { exact: true }), DOB.day);
  await page.keyboard.press('Tab');
  await page.keyboard.type(DOB.month[language]);
  await typeInto(page, page.getByLabel(m['form.year'], { exact: true }), DOB.year);
  await typeInto(page, page.getByLabel(m['form.postalCode']), POSTAL);
  await typeInto(page, page.getByLabel(m['form.driverLicence']), LICENCE);
  await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
}

/**
 * Chooses the email option on /registration/validation; the code page opens.
 * @param {import('playwright-core').Page} page
 */
async function chooseEmail(page) {
  await arrive(page, m['registration.validation.title']);
  await press(page, page.getByRole('radio', { name: /@/ }));
  await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
  await arrive(page, m['registration.code.title']);
  assert.equal(pathOf(page), '/registration/validation/email');
}

/**
 * Identifies a person and chooses the email option; resolves the code the
 * dev mailbox got at `to` and the ids seen before it (waitForMail's `seen`,
 * which holds it now).
 * @param {import('playwright-core').Page} page
 * @param {{ policy: string; first: string; last: string }} person
 * @param {string} to the person's email on file
 */
async function identifyByEmail(page, person, to) {
  const seen = await seenMail(server, to);
  await identify(page, person);
  await chooseEmail(page);
  const mail = await waitForMail(server, to, 'registration-code', seen);
  return { mail, seen };
}

/**
 * Types a message's code on the code page and presses Next.
 * @param {import('playwright-core').Page} page
 * @param {import('./harness.mjs').Mail} mail
 */
async function typeCode(page, mail) {
  await typeInto(page, page.getByLabel(m['form.code'], { exact: true }), codeOf(mail));
  await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
}

/**
 * The roadblock page: its path, its title focused (arrive: axe and no
 * sideways scroll too), the call-us card.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 * @param {string} title
 * @param {'en' | 'fr'} [language]
 */
async function onRoadblock(page, name, title, language = 'en') {
  await page.waitForURL((url) => url.pathname === `/roadblock/${name}`);
  await arrive(page, title);
  await page.getByRole('region', { name: messages[language]['contact.title'] }).waitFor();
}

/**
 * The call was refused with the status and error code given, the visitor is
 * on the roadblock page `name` (onRoadblock), and the page logged no error.
 * @param {{ page: import('playwright-core').Page; errors: string[] }} visit
 * @param {Promise<{ status: number; body: any }>} refused the call's answer (answerOf)
 * @param {{ status: number; errorCode: string }} expected
 * @param {string} name
 * @param {string} title
 * @param {'en' | 'fr'} [language]
 */
async function refusedToRoadblock({ page, errors }, refused, expected, name, title, language = 'en') {
  const { status, body } = await refused;
  assert.equal(status, expected.status);
  assert.equal(body?.errorCode, expected.errorCode);
  await onRoadblock(page, name, title, language);
  assert.deepEqual(realErrors(errors), []);
}

describe('roadblocks reached from the server’s answer', () => {
  test('resend-email: the fourth resend of a code by email (403 EXCEEDED_EMAIL_RESENDS)', async () => {
    const { page, errors } = await startRegistration();
    const to = `reg-email@${BRAND}.example`;
    const { seen } = await identifyByEmail(page, { policy: 'REG0001', first: 'Emma', last: 'Courriel' }, to);
    const resend = page.getByRole('button', { name: m['registration.code.resend'] });
    for (let i = 1; i <= 3; i++) {
      const answer = answerOf(page, /\/api\/v1\/registrations\/[^/]+\/validations\/[^/]+\/$/);
      await press(page, resend);
      assert.equal((await answer).status, 200);
      await page.getByRole('status').filter({ hasText: m['registration.code.resent'] }).waitFor();
      await waitForMail(server, to, 'registration-code', seen);
      await resend.waitFor();
    }
    const refused = answerOf(page, /\/api\/v1\/registrations\/[^/]+\/validations\/[^/]+\/$/);
    await press(page, resend);
    await refusedToRoadblock({ page, errors }, refused, { status: 403, errorCode: 'EXCEEDED_EMAIL_RESENDS' }, 'resend-email', m['roadblock.resendEmail.title']);
  });

  test('forgot-password: the UBI link with the holder account’s temporary password (403 3007)', async () => {
    const { page, errors } = await startRegistration();
    const { mail } = await identifyByEmail(page, { policy: 'REG0011', first: 'Tom', last: 'Temporaire' }, `temp@${BRAND}.example`);
    await typeCode(page, mail);
    await arrive(page, m['registration.passwordValidation.title']);
    assert.equal(pathOf(page), '/registration/password-validation');
    await typeInto(page, page.getByLabel(m['form.password'], { exact: true }), TEMPORARY);
    const refused = answerOf(page, /\/authentication$/);
    await page.keyboard.press('Enter');
    await refusedToRoadblock({ page, errors }, refused, { status: 403, errorCode: '3007' }, 'forgot-password', m['roadblock.forgotPassword.title']);
  });

  test('two-factor: a reset of a UBI driver with no cell phone on file (403 3006)', async () => {
    const email = `ubi-nophone@${BRAND}.example`;
    const cookies = localeCookies('on', 'en');
    const { page, errors } = await pages.open(server.url(BRAND, '/forgot'), { cookies });
    const seen = await seenMail(server, email);
    await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Enter your security code' }).waitFor();
    const mail = await waitForMail(server, email, 'reset-code', seen);
    await page.getByLabel('Security code', { exact: true }).fill(codeOf(mail));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    // A UBI driver proves it with the cell phone; none is on file, so none can match.
    await page.getByLabel('Cell phone number').fill('514-555-0123');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm your new password').fill(NEW_PASSWORD);
    const refused = answerOf(page, /\/api\/v1\/accounts\/[^/]+\/password$/);
    await page.getByRole('button', { name: 'Save my new password' }).click();
    await refusedToRoadblock({ page, errors }, refused, { status: 403, errorCode: '3006' }, 'two-factor', m['roadblock.twoFactor.title']);
  });

  test('soft roadblock lnr500160: create after an import cancelled the policy (400 4001), then technical (409 REGISTRATION_STATE)', async () => {
    const brand = 'scotia';
    const cookies = localeCookies('on', 'en');
    const { page, errors } = await pages.open(server.url(brand, '/registration/identification'), { cookies });
    const to = `reg-email@${brand}.example`;
    const { mail } = await identifyByEmail(page, { policy: 'REG0001', first: 'Emma', last: 'Courriel' }, to);
    await typeCode(page, mail);
    await arrive(page, m['registration.password.title']);
    // The insurer's file now says the policy is cancelled.
    const file = join(server.dataDir, 'cancel.csv');
    writeFileSync(file, `brand,policy_number,kind,province,role,first_name,last_name,date_of_birth,postal_code,driver_licence,licence_province,email,cell_phone,pin,ubi,status\n${brand},REG0001,auto,on,holder,Emma,Courriel,1985-03-14,${POSTAL},,,${to},,,false,cancelled\n`);
    await server.cli('import-policies', file);
    await typeInto(page, page.getByLabel(m['registration.password.password'], { exact: true }), NEW_PASSWORD);
    await typeInto(page, page.getByLabel(m['registration.password.confirmation']), NEW_PASSWORD);
    await press(page, page.getByRole('checkbox'));
    const refused = answerOf(page, /\/api\/v1\/accounts\/[^/]+\/create$/);
    await press(page, page.getByRole('button', { name: m['registration.password.submit'] }));
    const { status, body } = await refused;
    assert.equal(status, 400);
    assert.equal(body?.errorCode, '4001');
    const dialog = page.getByRole('dialog', { name: m['softRoadblock.title'] });
    await dialog.waitFor();
    await dialog.getByText('lnr500160').waitFor();
    await checkA11y(page);
    // The registration is closed: the same create again answers 409 REGISTRATION_STATE, the technical roadblock.
    await press(page, dialog.getByRole('button', { name: m['softRoadblock.close'] }));
    await dialog.waitFor({ state: 'hidden' });
    const closed = answerOf(page, /\/api\/v1\/accounts\/[^/]+\/create$/);
    await press(page, page.getByRole('button', { name: m['registration.password.submit'] }));
    const again = await closed;
    assert.equal(again.status, 409);
    assert.equal(again.body?.errorCode, 'REGISTRATION_STATE');
    await onRoadblock(page, 'technical', m['roadblock.technical.title']);
    assert.deepEqual(realErrors(errors), []);
  });

  test('inconsistency: an invitation to another account’s email for a registered person (412)', async () => {
    const out = await server.cli('tokens', 'issue', '--dev', '--brand', BRAND, '--policy', 'TOK0009', '--email', `demo@${BRAND}.example`, '--source', 'edoc', '--language', 'en');
    const link = out.trim().split('\n').pop() ?? '';
    assert.match(link, /\/registration\/link\?token=[A-Za-z0-9_-]{43}&src=edoc/);
    const { page, errors } = await pages.open(server.url(BRAND, '/?lang=en'));
    const read = answerOf(page, /\/api\/v1\/tokens\/[^/]+$/, 'GET');
    await page.goto(link);
    await refusedToRoadblock({ page, errors }, read, { status: 412, errorCode: 'INCONSISTENT' }, 'inconsistency', m['roadblock.inconsistency.title']);
  });

  // A brand for each language: a dead PIN is the registration's, but the
  // person's demo PIN is not worth sharing between the two.
  for (const [language, brand] of /** @type {const} */ ([['en', 'bna'], ['fr', 'scotia']])) {
    test(`pin-difficulties (${language}): the fifth wrong PIN (403 EXCEEDED_RETRIES_CODE_ACTIVATION)`, async () => {
      const t = messages[language];
      const { page, errors } = await startRegistration(language, brand);
      await identify(page, { policy: 'REG0003', first: 'Paula', last: 'Nip' }, language);
      await arrive(page, t['registration.validation.title']);
      await press(page, page.getByRole('radio', { name: t['registration.validation.option.pin'] }));
      await press(page, page.getByRole('button', { name: t['registration.next'], exact: true }));
      await arrive(page, t['registration.pin.title']);
      assert.equal(pathOf(page), '/registration/validation/pin');
      const pin = page.getByLabel(t['form.pin'], { exact: true });
      const guess = /\/api\/v1\/registrations\/[^/]+\/validations\/[^/]+\/$/;
      for (let left = 4; left >= 1; left--) {
        const answer = answerOf(page, guess);
        await typeInto(page, pin, `ZZ99ZZ9${left}`);
        await press(page, page.getByRole('button', { name: t['registration.next'], exact: true }));
        const { status, body } = await answer;
        assert.equal(status, 400);
        assert.equal(body?.errorCode, 'INVALID_ACTIVATION_CODE');
        const said = left === 1 ? t['registration.pin.wrong.one'] : t['registration.pin.wrong.other'].replace('{count}', String(left));
        await page.getByRole('alert').filter({ hasText: said }).waitFor();
        assert.equal(pathOf(page), '/registration/validation/pin');
      }
      const refused = answerOf(page, guess);
      await typeInto(page, pin, 'ZZ99ZZ90');
      await press(page, page.getByRole('button', { name: t['registration.next'], exact: true }));
      await refusedToRoadblock({ page, errors }, refused, { status: 403, errorCode: 'EXCEEDED_RETRIES_CODE_ACTIVATION' }, 'pin-difficulties', t['roadblock.pinDifficulties.title'], language);
    });
  }

  // The demo UBI driver account of each brand has 514-555-0123 on file.
  for (const [language, brand] of /** @type {const} */ ([['en', 'bna'], ['fr', 'scotia']])) {
    test(`wrong-cellphone (${language}): a reset of a UBI driver with a wrong cell phone (403 WRONG_CELLPHONE)`, async () => {
      const t = messages[language];
      const email = `ubi@${brand}.example`;
      const cookies = localeCookies('on', language);
      const { page, errors } = await pages.open(server.url(brand, '/forgot'), { cookies });
      const seen = await seenMail(server, email);
      await arrive(page, t['recovery.forgot.title'], { focus: false }); // a first load leaves the focus alone
      await typeInto(page, page.getByLabel(t['form.email']), email);
      await codeToNewPassword(server, page, t, email, seen);
      await typeInto(page, page.getByLabel(t['recovery.reset.cellPhone']), '514-555-0199');
      await typeInto(page, page.getByLabel(t['recovery.reset.newPassword'], { exact: true }), NEW_PASSWORD);
      await typeInto(page, page.getByLabel(t['recovery.reset.passwordConfirmation']), NEW_PASSWORD);
      const refused = answerOf(page, /\/api\/v1\/accounts\/[^/]+\/password$/);
      await press(page, page.getByRole('button', { name: t['recovery.reset.submit'] }));
      await refusedToRoadblock({ page, errors }, refused, { status: 403, errorCode: 'WRONG_CELLPHONE' }, 'wrong-cellphone', t['roadblock.wrongCellphone.title'], language);
    });
  }
});
