// Browser tests of legacy registration (issue 13, spec §2.4, §4.2, §2.6)
// against the built binary and its --dev registration demo people
// (docs/registration-demo.md), axe on every page. The visitor uses the mouse
// and the keyboard (page.mouse, page.keyboard). registration-en.test.mjs and
// registration-fr.test.mjs run the tests in a language each, so the browser
// test runner can run the two files side by side; each language has its own
// server (a fresh database: an account created in one does not exist in the
// other, and the per-address identification limit, 20 per 10 minutes, is
// never met).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { arrive, checkA11y, codeOf, localeCookies, pathOf, PHONE_320, press, realErrors, repoRoot, seenMail, serverForSuite, typeInto, waitForMail } from './harness.mjs';
import { DOB, LICENCE, NEW_PASSWORD, PIN, POSTAL, registrationMessages } from './demo.mjs';

/** What the visitor reads: the catalogues and the registration section, by language. */
export const messages = registrationMessages();

// A brand without the registration flag: its create-account button comes here (belair and intact go to smart registration).
const BRAND = 'bna';
const DEMO_EMAIL = `demo@${BRAND}.example`;
const DEMO_PASSWORD = 'Guichet-Demo-2026!';

/**
 * @typedef {{ policy: string; first: string; last: string; dob?: { day: string; month: { en: string; fr: string }; year: string } }} Person
 */
/** @type {Record<string, Person>} */
const people = {
  email: { policy: 'REG0001', first: 'Emma', last: 'Courriel' },
  sms: { policy: 'REG0002', first: 'Simon', last: 'Texto' },
  pin: { policy: 'REG0003', first: 'Paula', last: 'Nip' },
  askEmail: { policy: 'REG0004', first: 'Alice', last: 'Sansfil' },
  askUsername: { policy: 'REG0005', first: 'Ugo', last: 'Pris' },
  noOptions: { policy: 'REG0006', first: 'Nora', last: 'Aucun' },
  ubi: { policy: 'REG0007', first: 'Ubald', last: 'Conduit' },
  cancelled: { policy: 'REG0008', first: 'Carl', last: 'Annule' },
  pinOnly: { policy: 'REG0009', first: 'Pia', last: 'Lettre' },
  registered: { policy: 'BNA1001', first: 'Alex', last: 'Martin', dob: { day: '12', month: { en: 'April', fr: 'avril' }, year: '1980' } },
};

/** The registration pages a visitor may not open by their address before registration has reached them. */
const GUARDED = JSON.parse(readFileSync(join(repoRoot, 'web/src/test/guarded-registration-pages.json'), 'utf8')).paths;

/**
 * The registration tests in one language, on a server of their own: call it
 * in a describe() of the test file (e2e/file-times.mjs counts a suite's time
 * for the file that declares it).
 * @param {import('playwright-core').Browser} browser
 * @param {'en' | 'fr'} language
 */
export function registrationTests(browser, language) {
  const m = messages[language];
  // French, the longer words, on the narrowest phone; English at the default desktop width.
  const suite = serverForSuite(browser, language === 'fr' ? PHONE_320 : {});

  /**
   * A fresh visitor on the login page, in the language (cookies, so the
   * pages the SSO redirects to speak it too), who presses Create an account.
   */
  async function startRegistration() {
    const cookies = localeCookies('on', language);
    const opened = await suite.visitor.open(suite.server.url(BRAND, '/'), { cookies });
    await press(opened.page, opened.page.getByRole('link', { name: m['login.createAccount'] }));
    await arrive(opened.page, m['registration.identification.title']);
    return opened;
  }

  /**
   * A test of a registration: `walk` goes on from identification
   * (startRegistration's), and the page logged no error but the API's
   * error statuses.
   * @param {string} name
   * @param {(page: import('playwright-core').Page) => Promise<void>} walk
   */
  function registrationTest(name, walk) {
    test(name, async () => {
      const { page, errors } = await startRegistration();
      await walk(page);
      assert.deepEqual(realErrors(errors), []);
    });
  }

  /**
   * Fills identification for a person and presses Next.
   * @param {import('playwright-core').Page} page
   * @param {Person} person
   */
  async function identify(page, person) {
    const dob = person.dob ?? DOB;
    await typeInto(page, page.getByLabel(m['form.policyNumber']), person.policy);
    await typeInto(page, page.getByLabel(m['form.firstName']), person.first);
    await typeInto(page, page.getByLabel(m['form.lastName']), person.last);
    await typeInto(page, page.getByLabel(m['form.day']), dob.day);
    // The month by keyboard: Tab to the dropdown, type the month's name.
    await page.keyboard.press('Tab');
    await page.keyboard.type(dob.month[language]);
    await typeInto(page, page.getByLabel(m['form.year']), dob.year);
    await typeInto(page, page.getByLabel(m['form.postalCode']), POSTAL);
    await typeInto(page, page.getByLabel(m['form.driverLicence']), LICENCE);
    await pressNext(page);
  }

  /**
   * Presses the page's Next button.
   * @param {import('playwright-core').Page} page
   */
  async function pressNext(page) {
    await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
  }

  /**
   * On the validation page, chooses an option and presses Next; arrives on the option's page.
   * @param {import('playwright-core').Page} page
   * @param {string | RegExp} option the option's radio button name
   * @param {string} title the option's page's title
   */
  async function chooseOption(page, option, title) {
    await arrive(page, m['registration.validation.title']);
    assert.equal(pathOf(page), '/registration/validation');
    await press(page, page.getByRole('radio', { name: option }));
    await pressNext(page);
    await arrive(page, title);
  }

  /**
   * Types an email and its confirmation on the email page and presses Next.
   * @param {import('playwright-core').Page} page
   * @param {string} email
   */
  async function submitEmail(page, email) {
    await typeInto(page, page.getByLabel(m['form.email'], { exact: true }), email);
    await typeInto(page, page.getByLabel(m['registration.email.confirmation']), email);
    await pressNext(page);
  }

  /**
   * Submits an email no account has, then types the code sent to it on the email code page.
   * @param {import('playwright-core').Page} page
   * @param {string} email
   */
  async function validateNewEmail(page, email) {
    const seen = await seenMail(suite.server, email);
    await submitEmail(page, email);
    await arrive(page, m['registration.code.title']);
    assert.equal(pathOf(page), '/registration/validation/email');
    await typeCodeFrom(page, email, seen);
  }

  /**
   * Presses Next and waits for the answer (the button is disabled while the form sends).
   * @param {import('playwright-core').Page} page
   */
  async function next(page) {
    const button = page.getByRole('button', { name: m['registration.next'], exact: true });
    await press(page, button);
    await page.waitForFunction(() => !document.querySelector('button[type="submit"][disabled]'));
  }

  /**
   * Types a code from the dev mailbox and presses Next.
   * @param {import('playwright-core').Page} page
   * @param {string} to
   * @param {Set<string>} seen
   */
  async function typeCodeFrom(page, to, seen) {
    const mail = await waitForMail(suite.server, to, 'registration-code', seen);
    await typeInto(page, page.getByLabel(m['form.code'], { exact: true }), codeOf(mail));
    await pressNext(page);
  }

  /**
   * The password page: password, confirmation, terms; the SSO signs in and /my-account lists the policy.
   * @param {import('playwright-core').Page} page
   * @param {string} policy
   */
  async function createAccount(page, policy) {
    await arrive(page, m['registration.password.title']);
    assert.equal(pathOf(page), '/registration/account-creation/password');
    await typeInto(page, page.getByLabel(m['registration.password.password'], { exact: true }), NEW_PASSWORD);
    await typeInto(page, page.getByLabel(m['registration.password.confirmation']), NEW_PASSWORD);
    // Without the terms: the rule's message, nothing sent.
    await press(page, page.getByRole('button', { name: m['registration.password.submit'] }));
    await page.getByText(m.errorTermsRequired).first().waitFor();
    await press(page, page.getByRole('checkbox'));
    await press(page, page.getByRole('button', { name: m['registration.password.submit'] }));
    await page.waitForURL((url) => url.pathname === '/my-account');
    await arrive(page, m['account.title']);
    await page.getByText(policy.replace(/^(...)/, '$1-')).first().waitFor();
  }

  registrationTest('by email code: a new account, then signing out and back in with the new password', async (page) => {
    const to = `reg-email@${BRAND}.example`;
    const seen = await seenMail(suite.server, to);
    await identify(page, people.email);
    await chooseOption(page, /@/, m['registration.code.title']);
    assert.equal(pathOf(page), '/registration/validation/email');
    await typeCodeFrom(page, to, seen);
    await createAccount(page, people.email.policy);

    await press(page, page.getByRole('button', { name: m['account.signOut'] }));
    await arrive(page, m['login.title']);
    await typeInto(page, page.getByLabel(m['form.email']), to);
    await typeInto(page, page.getByLabel(m['form.password'], { exact: true }), NEW_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/my-account');
    await arrive(page, m['account.title']);
  });

  registrationTest('by SMS code, with a resend (a spinner, then a new code)', async (page) => {
    const to = '+15145550101';
    const seen = await seenMail(suite.server, to);
    await identify(page, people.sms);
    await chooseOption(page, /0101/, m['registration.code.title']);
    assert.equal(pathOf(page), '/registration/validation/sms');
    await waitForMail(suite.server, to, 'registration-code', seen);
    await press(page, page.getByRole('button', { name: m['registration.code.resend'] }));
    await page.getByRole('button', { name: m['registration.code.resending'] }).waitFor();
    await page.getByRole('status').filter({ hasText: m['registration.code.resent'] }).waitFor();
    await typeCodeFrom(page, to, seen);
    await createAccount(page, people.sms.policy);
  });

  registrationTest('by PIN, with the picture of the letter', async (page) => {
    await identify(page, people.pin);
    await chooseOption(page, m['registration.validation.option.pin'], m['registration.pin.title']);
    assert.equal(pathOf(page), '/registration/validation/pin');
    await page.getByRole('img', { name: m['registration.pin.imageTitle'] }).waitFor();
    // A wrong PIN first: the page says so, with the tries left.
    await typeInto(page, page.getByLabel(m['form.pin'], { exact: true }), 'zz99zz99');
    await pressNext(page);
    await page.getByRole('alert').filter({ hasText: m['registration.pin.wrong.other'].split('{count}')[0] ?? '' }).waitFor();
    await typeInto(page, page.getByLabel(m['form.pin'], { exact: true }), PIN.toLowerCase());
    await pressNext(page);
    await createAccount(page, people.pin.policy);
  });

  registrationTest('PIN only (issue 28): the PIN page at once, then an email, its code, the password', async (page) => {
    await identify(page, people.pinOnly);
    // Spec §4.2: exactly one option of PIN goes to validation/pin (no choice shown).
    await arrive(page, m['registration.pin.title']);
    assert.equal(pathOf(page), '/registration/validation/pin');
    await checkA11y(page);
    await typeInto(page, page.getByLabel(m['form.pin'], { exact: true }), PIN);
    await pressNext(page);
    await arrive(page, m['registration.email.title']);
    assert.equal(pathOf(page), '/registration/account-creation/email');
    await validateNewEmail(page, `pia.${language}@example.com`);
    await createAccount(page, people.pinOnly.policy);
  });

  registrationTest('ask-email: nothing on file; an email taken says so, a new one gets a code', async (page) => {
    await identify(page, people.askEmail);
    await arrive(page, m['registration.email.title']);
    assert.equal(pathOf(page), '/registration/account-creation/email');
    await submitEmail(page, DEMO_EMAIL);
    await page.getByRole('alert').filter({ hasText: m['registration.email.taken'].replace('{email}', DEMO_EMAIL) }).waitFor();
    assert.equal(pathOf(page), '/registration/account-creation/email');
    await validateNewEmail(page, `alice.${language}@example.com`);
    await createAccount(page, people.askEmail.policy);
  });

  registrationTest('ask-username: the email on file is taken, another one is chosen', async (page) => {
    const seen = await seenMail(suite.server, DEMO_EMAIL);
    await identify(page, people.askUsername);
    await chooseOption(page, /@/, m['registration.code.title']);
    await typeCodeFrom(page, DEMO_EMAIL, seen);
    await arrive(page, m['registration.newEmail.title']);
    assert.equal(pathOf(page), '/registration/account-creation/new-email');
    await validateNewEmail(page, `ugo.${language}@example.com`);
    await createAccount(page, people.askUsername.policy);
  });

  registrationTest('UBI driver whose email is a policyholder account: password-validation links the policy', async (page) => {
    const to = '+15145550107';
    const seen = await seenMail(suite.server, to);
    await identify(page, people.ubi);
    await chooseOption(page, /0107/, m['registration.code.title']);
    await typeCodeFrom(page, to, seen);
    await arrive(page, m['registration.passwordValidation.title']);
    assert.equal(pathOf(page), '/registration/password-validation');
    await typeInto(page, page.getByLabel(m['form.password'], { exact: true }), DEMO_PASSWORD);
    // Spec §7: the link is POST accounts/{id}/authentication with the registration's id.
    const linking = page.waitForRequest((request) => request.method() === 'POST' && /\/authentication$/.test(new URL(request.url()).pathname));
    await page.keyboard.press('Enter');
    assert.match(new URL((await linking).url()).pathname, /^\/api\/v1\/accounts\/[A-Za-z0-9_-]{22}\/authentication$/);
    await page.waitForURL((url) => url.pathname === '/my-account');
    await arrive(page, m['account.title']);
    await page.getByText('REG-0007').first().waitFor();
  });

  registrationTest('already registered three times: a message with a sign-in link twice, then more-than-one-profile', async (page) => {
    await identify(page, people.registered);
    for (let i = 0; i < 2; i++) {
      if (i > 0) await next(page);
      await page.getByRole('alert').filter({ hasText: m['registration.identification.alreadyRegistered'] }).waitFor();
      await page.getByRole('link', { name: m['registration.identification.signIn'] }).waitFor();
      assert.equal(pathOf(page), '/registration/identification');
      await checkA11y(page);
    }
    await next(page);
    await arrive(page, m['roadblock.moreThanOneProfile.title']);
    assert.equal(pathOf(page), '/roadblock/more-than-one-profile');
  });

  registrationTest('not found three times: a message twice, then registration-difficulties, whose button starts again', async (page) => {
    await identify(page, people.cancelled);
    await page.getByRole('alert').filter({ hasText: m['identification.notFound'] }).waitFor();
    await checkA11y(page);
    await next(page);
    await page.getByRole('alert').filter({ hasText: m['identification.notFound'] }).waitFor();
    assert.equal(pathOf(page), '/registration/identification');
    await next(page);
    await arrive(page, m['roadblock.registrationDifficulties.title']);
    assert.equal(pathOf(page), '/roadblock/registration-difficulties');
    await press(page, page.getByRole('button', { name: m['roadblock.backToRegistration'] }));
    await arrive(page, m['registration.identification.title']);
    assert.equal(pathOf(page), '/registration/identification');
  });

  registrationTest('no options: the no-options roadblock', async (page) => {
    await identify(page, people.noOptions);
    await arrive(page, m['roadblock.noOptions.title']);
    assert.equal(pathOf(page), '/roadblock/no-options');
  });

  test('guards: a registration page opened by its address goes to / keeping the query string', async () => {
    // email-sent without a registration under way, and the link's entry without its token (issue 28): / too.
    for (const path of [...GUARDED, '/registration/email-sent', '/registration/link']) {
      const { page } = await suite.visitor.open(suite.server.url(BRAND, `${path}?lang=${language}&from=x`));
      await page.waitForURL((url) => url.pathname === '/');
      assert.equal(pathOf(page), `/?lang=${language}&from=x`, path);
      await arrive(page, m['login.title'], { focus: false });
    }
    // /registration keeps redirecting to identification with the query string.
    const { page } = await suite.visitor.open(suite.server.url(BRAND, `/registration?lang=${language}&from=x`));
    await arrive(page, m['registration.identification.title'], { focus: false });
    assert.equal(pathOf(page), `/registration/identification?lang=${language}&from=x`);
  });
}
