// Browser tests of legacy registration (issue 13, spec §2.4, §4.2, §2.6)
// against the built binary and its --dev registration demo people
// (docs/registration-demo.md), in English and in French, axe on every page.
// The visitor uses the mouse and the keyboard (page.mouse, page.keyboard).
// Each language has its own server (a fresh database: an account created
// in one does not exist in the other, and the per-address identification
// limit, 20 per 10 minutes, is never met).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { arrive, brands, checkA11y, codeOf, mailbox, openPage, pathOf, PHONE_320, press, realErrors, serverForSuite, startBrowser, typeInto, waitForMail } from './harness.mjs';
import { catalogue, DOB, LICENCE, NEW_PASSWORD, PIN, POSTAL, registrationMessages } from './demo.mjs';

/** What the visitor reads: the catalogues and the registration section, by language. */
const messages = registrationMessages();

/** Smart registration's first page (issue 15), where the create-account button of belair and intact goes. */
const smartTitle = /** @type {string} */ (catalogue('sections/smartRegistration.en.json')['smartRegistration.accountType.title']);

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

const browser = await startBrowser();

describe('the create-account button: smart registration where the brand has the flag (belair, intact), else registration identification', () => {
  const suite = serverForSuite(browser);

  for (const brand of brands) {
    test(brand, async () => {
      const smart = brand === 'belair' || brand === 'intact';
      const { context, page, errors } = await openPage(browser, suite.server.url(brand, '/?lang=en'));
      try {
        await press(page, page.getByRole('link', { name: messages.en['login.createAccount'] }));
        await arrive(page, smart ? smartTitle : messages.en['registration.identification.title']);
        assert.equal(pathOf(page), smart ? '/create-an-account/identification/account-type' : '/registration/identification');
        assert.deepEqual(realErrors(errors), []);
      } finally {
        await context.close();
      }
    });
  }
});

for (const language of /** @type {const} */ (['en', 'fr'])) {
  const m = messages[language];
  describe(`registration in ${language === 'en' ? 'English' : 'French'}`, () => {
    // French, the longer words, on the narrowest phone; English at the default desktop width.
    const suite = serverForSuite(browser, language === 'fr' ? PHONE_320 : {});

    /**
     * A fresh visitor on the login page, in the language (cookies, so the
     * pages the SSO redirects to speak it too), who presses Create an account.
     */
    async function startRegistration() {
      const cookies = [
        { name: 'province', value: 'on' },
        { name: 'language', value: language },
      ];
      const opened = await suite.visitor.open(suite.server.url(BRAND, '/'), { cookies });
      await press(opened.page, opened.page.getByRole('link', { name: m['login.createAccount'] }));
      await arrive(opened.page, m['registration.identification.title']);
      return opened;
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

    /** @param {string} to */
    const seenMail = async (to) => new Set((await mailbox(suite.server, to)).map((mail) => mail.id));

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

    test('by email code: a new account, then signing out and back in with the new password', async () => {
      const { page, errors } = await startRegistration();
      const to = `reg-email@${BRAND}.example`;
      const seen = await seenMail(to);
      await identify(page, people.email);
      await arrive(page, m['registration.validation.title']);
      assert.equal(pathOf(page), '/registration/validation');
      await press(page, page.getByRole('radio', { name: /@/ }));
      await pressNext(page);
      await arrive(page, m['registration.code.title']);
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
      assert.deepEqual(realErrors(errors), []);
    });

    test('by SMS code, with a resend (a spinner, then a new code)', async () => {
      const { page, errors } = await startRegistration();
      const to = '+15145550101';
      const seen = await seenMail(to);
      await identify(page, people.sms);
      await arrive(page, m['registration.validation.title']);
      await press(page, page.getByRole('radio', { name: /0101/ }));
      await pressNext(page);
      await arrive(page, m['registration.code.title']);
      assert.equal(pathOf(page), '/registration/validation/sms');
      await waitForMail(suite.server, to, 'registration-code', seen);
      await press(page, page.getByRole('button', { name: m['registration.code.resend'] }));
      await page.getByRole('button', { name: m['registration.code.resending'] }).waitFor();
      await page.getByRole('status').filter({ hasText: m['registration.code.resent'] }).waitFor();
      await typeCodeFrom(page, to, seen);
      await createAccount(page, people.sms.policy);
      assert.deepEqual(realErrors(errors), []);
    });

    test('by PIN, with the picture of the letter', async () => {
      const { page, errors } = await startRegistration();
      await identify(page, people.pin);
      await arrive(page, m['registration.validation.title']);
      await press(page, page.getByRole('radio', { name: m['registration.validation.option.pin'] }));
      await pressNext(page);
      await arrive(page, m['registration.pin.title']);
      assert.equal(pathOf(page), '/registration/validation/pin');
      await page.getByRole('img', { name: m['registration.pin.imageTitle'] }).waitFor();
      // A wrong PIN first: the page says so, with the tries left.
      await typeInto(page, page.getByLabel(m['form.pin'], { exact: true }), 'zz99zz99');
      await pressNext(page);
      await page.getByRole('alert').filter({ hasText: m['registration.pin.wrong.other'].split('{count}')[0] ?? '' }).waitFor();
      await typeInto(page, page.getByLabel(m['form.pin'], { exact: true }), PIN.toLowerCase());
      await pressNext(page);
      await createAccount(page, people.pin.policy);
      assert.deepEqual(realErrors(errors), []);
    });

    test('PIN only (issue 28): the PIN page at once, then an email, its code, the password', async () => {
      const { page, errors } = await startRegistration();
      const email = `pia.${language}@example.com`;
      await identify(page, people.pinOnly);
      // Spec §4.2: exactly one option of PIN goes to validation/pin (no choice shown).
      await arrive(page, m['registration.pin.title']);
      assert.equal(pathOf(page), '/registration/validation/pin');
      await checkA11y(page);
      await typeInto(page, page.getByLabel(m['form.pin'], { exact: true }), PIN);
      await pressNext(page);
      await arrive(page, m['registration.email.title']);
      assert.equal(pathOf(page), '/registration/account-creation/email');
      const seen = await seenMail(email);
      await submitEmail(page, email);
      await arrive(page, m['registration.code.title']);
      assert.equal(pathOf(page), '/registration/validation/email');
      await typeCodeFrom(page, email, seen);
      await createAccount(page, people.pinOnly.policy);
      assert.deepEqual(realErrors(errors), []);
    });

    test('ask-email: nothing on file; an email taken says so, a new one gets a code', async () => {
      const { page, errors } = await startRegistration();
      const email = `alice.${language}@example.com`;
      await identify(page, people.askEmail);
      await arrive(page, m['registration.email.title']);
      assert.equal(pathOf(page), '/registration/account-creation/email');
      await submitEmail(page, DEMO_EMAIL);
      await page.getByRole('alert').filter({ hasText: m['registration.email.taken'].replace('{email}', DEMO_EMAIL) }).waitFor();
      assert.equal(pathOf(page), '/registration/account-creation/email');
      const seen = await seenMail(email);
      await submitEmail(page, email);
      await arrive(page, m['registration.code.title']);
      assert.equal(pathOf(page), '/registration/validation/email');
      await typeCodeFrom(page, email, seen);
      await createAccount(page, people.askEmail.policy);
      assert.deepEqual(realErrors(errors), []);
    });

    test('ask-username: the email on file is taken, another one is chosen', async () => {
      const { page, errors } = await startRegistration();
      const seen = await seenMail(DEMO_EMAIL);
      await identify(page, people.askUsername);
      await arrive(page, m['registration.validation.title']);
      await press(page, page.getByRole('radio', { name: /@/ }));
      await pressNext(page);
      await arrive(page, m['registration.code.title']);
      await typeCodeFrom(page, DEMO_EMAIL, seen);
      await arrive(page, m['registration.newEmail.title']);
      assert.equal(pathOf(page), '/registration/account-creation/new-email');
      const email = `ugo.${language}@example.com`;
      const seenNew = await seenMail(email);
      await submitEmail(page, email);
      await arrive(page, m['registration.code.title']);
      assert.equal(pathOf(page), '/registration/validation/email');
      await typeCodeFrom(page, email, seenNew);
      await createAccount(page, people.askUsername.policy);
      assert.deepEqual(realErrors(errors), []);
    });

    test('UBI driver whose email is a policyholder account: password-validation links the policy', async () => {
      const { page, errors } = await startRegistration();
      const to = '+15145550107';
      const seen = await seenMail(to);
      await identify(page, people.ubi);
      await arrive(page, m['registration.validation.title']);
      await press(page, page.getByRole('radio', { name: /0107/ }));
      await pressNext(page);
      await arrive(page, m['registration.code.title']);
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
      assert.deepEqual(realErrors(errors), []);
    });

    test('already registered three times: a message with a sign-in link twice, then more-than-one-profile', async () => {
      const { page, errors } = await startRegistration();
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
      assert.deepEqual(realErrors(errors), []);
    });

    test('not found three times: a message twice, then registration-difficulties, whose button starts again', async () => {
      const { page, errors } = await startRegistration();
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
      assert.deepEqual(realErrors(errors), []);
    });

    test('no options: the no-options roadblock', async () => {
      const { page, errors } = await startRegistration();
      await identify(page, people.noOptions);
      await arrive(page, m['roadblock.noOptions.title']);
      assert.equal(pathOf(page), '/roadblock/no-options');
      assert.deepEqual(realErrors(errors), []);
    });

    test('guards: a registration page opened by its address goes to / keeping the query string', async () => {
      for (const path of [
        '/registration/validation',
        '/registration/validation/sms',
        '/registration/validation/email',
        '/registration/validation/pin',
        '/registration/account-creation/email',
        '/registration/account-creation/new-email',
        '/registration/account-creation/password',
      ]) {
        const { page } = await suite.visitor.open(suite.server.url(BRAND, `${path}?lang=${language}&from=x`));
        await page.waitForURL((url) => url.pathname === '/');
        assert.equal(pathOf(page), `/?lang=${language}&from=x`, path);
        await arrive(page, m['login.title'], { focus: false });
      }
      // email-sent without a registration under way, and the link's entry without its token (issue 28): / too.
      for (const path of ['/registration/email-sent', '/registration/link']) {
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
  });
}
