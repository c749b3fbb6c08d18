// Browser tests of smart registration (issue 15, spec §2.5, §4.1, §8.1,
// §8.2) against the built binary and its --dev registration demo people
// (docs/registration-demo.md), on belair and intact, in English (desktop)
// and in French (a 320 px phone, WCAG 1.4.10 reflow), axe on every page.
// The visitor uses the mouse and the keyboard. Each language has its own
// server (a fresh database: an account created in one does not exist in
// the other); the ended session has one whose clock the test moves past
// the session's lifetime (POST /_dev/clock, --dev only).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { advanceClock, arrive, checkA11y, codeOf, keptPages, localeCookies, pathOf, PHONE_320, press, realErrors, seenMail, serverForSuite, startBrowser, typeInto, waitForMail } from './harness.mjs';
import { DOB, LICENCE, NEW_PASSWORD, PIN, POSTAL, registrationMessages } from './demo.mjs';
import { createSmartAccount } from './steps.mjs';

/** What the visitor reads: the catalogues and the two registration sections, by language. */
const messages = registrationMessages('smartRegistration');

const ACCOUNT_TYPE = '/create-an-account/identification/account-type';

/** The demo people (docs/registration-demo.md): policy number by brand (intact in on: 9 characters). */
const people = {
  email: { policy: { belair: 'REG0001', intact: 'REG000001' }, first: 'Emma', last: 'Courriel' },
  sms: { policy: { belair: 'REG0002', intact: 'REG000002' }, first: 'Simon', last: 'Texto' },
  pin: { policy: { belair: 'REG0003', intact: 'REG000003' }, first: 'Paula', last: 'Nip' },
  askUsername: { policy: { belair: 'REG0005', intact: 'REG000005' }, first: 'Ugo', last: 'Pris' },
};
/** @typedef {(typeof people)[keyof typeof people]} Person */
/** @typedef {'belair' | 'intact'} Brand */

const browser = await startBrowser();

/** @param {'en' | 'fr'} language */
function visitor(language) {
  const m = messages[language];
  const cookies = localeCookies('on', language);
  /** @type {import('./harness.mjs').KeptPages | undefined} made at the first test (the browser is launched by then) */
  let kept;
  /** @type {import('./harness.mjs').KeptPages} a page per brand (its host), opened afresh by each test */
  const pages = {
    open: (url, options) => (kept ??= keptPages(browser, language === 'fr' ? PHONE_320 : {})).open(url, options),
    close: async () => {
      await kept?.close();
      kept = undefined;
    },
  };

  /**
   * A fresh visitor on the brand's login page who presses Create an account (smart registration: the flag is on).
   * @param {import('./harness.mjs').Server} server
   * @param {Brand} brand
   */
  async function start(server, brand) {
    const opened = await pages.open(server.url(brand, '/'), { cookies });
    await press(opened.page, opened.page.getByRole('link', { name: m['login.createAccount'] }));
    await arrive(opened.page, m['smartRegistration.accountType.title']);
    assert.equal(pathOf(opened.page), ACCOUNT_TYPE);
    return opened;
  }

  /**
   * Presses a button by its name.
   * @param {import('playwright-core').Page} page
   * @param {string} name
   */
  const button = (page, name) => press(page, page.getByRole('button', { name, exact: true }));

  /**
   * Policyholder (the default), Next, then the identification form the server's fields build, and Next.
   * @param {import('playwright-core').Page} page
   * @param {Brand} brand
   * @param {Person} person
   */
  async function identify(page, brand, person) {
    assert.equal(await page.getByRole('radio', { name: m['smartRegistration.accountType.policyHolder'] }).isChecked(), true);
    await button(page, m['smartRegistration.next']);
    await arrive(page, m['smartRegistration.identification.title']);
    assert.equal(pathOf(page), '/create-an-account/identification');
    await typeInto(page, page.getByLabel(m['smartRegistration.field.policyNumber']), person.policy[brand]);
    await typeInto(page, page.getByLabel(m['smartRegistration.field.firstName']), person.first);
    await typeInto(page, page.getByLabel(m['smartRegistration.field.lastName']), person.last);
    await typeInto(page, page.getByLabel(m['form.day']), DOB.day);
    await page.keyboard.press('Tab');
    await page.keyboard.type(DOB.month[language]);
    await typeInto(page, page.getByLabel(m['form.year']), DOB.year);
    await typeInto(page, page.getByLabel(m['smartRegistration.field.postalCode']), POSTAL);
    await typeInto(page, page.getByLabel(m['smartRegistration.field.driverLicence']), LICENCE);
    await button(page, m['smartRegistration.next']);
  }

  /**
   * The options page: choose the option whose label matches, Next; the code
   * page. null: a person with a single option, chosen and sent at once
   * (spec §4.1), so the code page comes straight after identification.
   * @param {import('playwright-core').Page} page
   * @param {string | RegExp | null} option
   * @param {string} title
   */
  async function choose(page, option, title) {
    if (option !== null) {
      await arrive(page, m['smartRegistration.options.title']);
      assert.equal(pathOf(page), '/create-an-account/verify/options');
      await press(page, page.getByRole('radio', { name: option }));
      await button(page, m['smartRegistration.next']);
    }
    await arrive(page, title);
    assert.equal(pathOf(page), '/create-an-account/verify/code');
  }

  /**
   * Types the newest code sent to `to` and presses Next.
   * @param {import('./harness.mjs').Server} server
   * @param {import('playwright-core').Page} page
   * @param {string} to
   * @param {Set<string>} seen
   */
  async function typeCode(server, page, to, seen) {
    const mail = await waitForMail(server, to, 'registration-code', seen);
    await enter(page, m['form.code'], codeOf(mail));
  }

  /**
   * Types a code or a PIN in the field so labelled and presses Next.
   * @param {import('playwright-core').Page} page
   * @param {string} label
   * @param {string} value
   */
  async function enter(page, label, value) {
    await typeInto(page, page.getByLabel(label, { exact: true }), value);
    await button(page, m['smartRegistration.next']);
  }

  /**
   * The page refused what was sent: its alert says so (axe-clean with it).
   * @param {import('playwright-core').Page} page
   * @param {string} text
   */
  async function refused(page, text) {
    await page.getByRole('alert').filter({ hasText: text }).waitFor();
    await checkA11y(page);
  }

  /**
   * The password page, then the confirmation, whose button signs in: /my-account lists the policy.
   * @param {import('playwright-core').Page} page
   * @param {string} username
   * @param {string} policy
   */
  async function create(page, username, policy) {
    await arrive(page, m['smartRegistration.create.title']);
    assert.equal(pathOf(page), '/create-an-account/account-creation/create');
    await createSmartAccount(page, m, NEW_PASSWORD);
    assert.equal(pathOf(page), '/create-an-account/confirmation');
    await page.getByText(m['smartRegistration.confirmation.text'].replace('{username}', username)).waitFor();
    await button(page, m['smartRegistration.confirmation.goToProfile']);
    await page.waitForURL((url) => url.pathname === '/my-account');
    await arrive(page, m['account.title']);
    await page.getByText(policy.length === 7 ? policy.replace(/^(...)/, '$1-') : policy).first().waitFor();
  }

  /**
   * The choose-username page confirming the email on file.
   * @param {import('playwright-core').Page} page
   * @param {string} email
   */
  async function keepEmail(page, email) {
    await arrive(page, m['smartRegistration.email.title']);
    assert.equal(pathOf(page), '/create-an-account/verify/email');
    await page.getByText(m['smartRegistration.email.confirmText'].replace('{email}', email)).waitFor();
    await button(page, m['smartRegistration.email.useThis']);
  }

  /**
   * Types an email and its confirmation on the choose-username page and presses Next.
   * @param {import('playwright-core').Page} page
   * @param {string} email
   */
  async function submitEmail(page, email) {
    await typeInto(page, page.getByLabel(m['form.email'], { exact: true }), email);
    await typeInto(page, page.getByLabel(m['smartRegistration.email.confirmation']), email);
    await button(page, m['smartRegistration.next']);
  }

  return { m, pages, start, button, identify, choose, typeCode, enter, refused, create, keepEmail, submitEmail };
}

for (const language of /** @type {const} */ (['en', 'fr'])) {
  const v = visitor(language);
  const { m } = v;
  describe(`smart registration in ${language === 'en' ? 'English' : 'French'}`, () => {
    after(() => v.pages.close());
    const suite = serverForSuite(browser);

    /**
     * @param {import('playwright-core').Page} page
     * @param {string} to
     * @param {Set<string>} seen
     */
    const typeCode = (page, to, seen) => v.typeCode(suite.server, page, to, seen);

    /**
     * A test of a registration on a brand: `walk` goes on from the account
     * type (v.start's), and the page logged no error but the API's error
     * statuses.
     * @param {string} name
     * @param {Brand} brand
     * @param {(page: import('playwright-core').Page) => Promise<void>} walk
     */
    function registrationTest(name, brand, walk) {
      test(name, async () => {
        const { page, errors } = await v.start(suite.server, brand);
        await walk(page);
        assert.deepEqual(realErrors(errors), []);
      });
    }

    /**
     * Identifies a person with a single option, chosen and sent at once
     * (spec §4.1): the code page comes straight after identification.
     * Resolves the ids of the messages to `to` before (seenMail).
     * @param {import('playwright-core').Page} page
     * @param {Brand} brand
     * @param {Person} person
     * @param {string} to where the person's single option sends the code
     */
    async function identifyWithOneOption(page, brand, person, to) {
      const seen = await seenMail(suite.server, to);
      await v.identify(page, brand, person);
      await v.choose(page, null, m['smartRegistration.code.title']);
      return seen;
    }

    /**
     * The code page of an email (its text names it): types the code sent there.
     * @param {import('playwright-core').Page} page
     * @param {string} email
     * @param {Set<string>} seen
     */
    async function emailCode(page, email, seen) {
      await arrive(page, m['smartRegistration.code.title']);
      assert.equal(pathOf(page), '/create-an-account/verify/code');
      await page.getByText(m['smartRegistration.code.textEmail'].replace('{value}', email)).waitFor();
      await typeCode(page, email, seen);
    }

    registrationTest('belair: identification opens whole when its fields answer late (a slow phone)', 'belair', async (page) => {
      // Issue 32: the page once showed a loading line, then the form, pushing the promo panel down (CLS 0.47
      // when the answer came after the 500 ms a shift is forgiven after a click). Next now waits for the fields;
      // held here past those 500 ms, the page must still open with its whole form.
      await page.route('**/api/v2/registration/fields', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 700));
        await route.continue();
      });
      await v.button(page, m['smartRegistration.next']);
      await arrive(page, m['smartRegistration.identification.title']);
      // No waiting: the form is there with the title.
      assert.equal(await page.getByLabel(m['smartRegistration.field.policyNumber']).count(), 1);
      assert.equal(await page.getByText(m['smartRegistration.loading']).count(), 0);
      await page.unroute('**/api/v2/registration/fields');
    });

    registrationTest('belair, by email code: the email on file kept, the account created, the confirmation signs in', 'belair', async (page) => {
      const to = 'reg-email@belair.example';
      // Emma has an email only: its code goes at once.
      const seen = await identifyWithOneOption(page, 'belair', people.email, to);
      await typeCode(page, to, seen);
      await v.keepEmail(page, to);
      // The code went to that email: no second one.
      await v.create(page, to, people.email.policy.belair);
    });

    registrationTest('intact, by SMS, with a resend; the email on file kept gets a code of its own', 'intact', async (page) => {
      const phone = '+15145550101';
      const email = 'reg-sms@intact.example';
      const seen = await seenMail(suite.server, phone);
      const seenEmail = await seenMail(suite.server, email);
      await v.identify(page, 'intact', people.sms);
      await v.choose(page, /0101/, m['smartRegistration.code.title']);
      await waitForMail(suite.server, phone, 'registration-code', seen);
      await v.button(page, m['smartRegistration.code.resend']);
      await page.getByRole('button', { name: m['smartRegistration.code.resending'] }).waitFor();
      await page.getByRole('status').filter({ hasText: m['smartRegistration.code.resent'] }).waitFor();
      await typeCode(page, phone, seen);
      await v.keepEmail(page, email);
      await emailCode(page, email, seenEmail);
      await v.create(page, email, people.sms.policy.intact);
    });

    registrationTest('belair, by PIN: the letter, a wrong PIN says so, the right one goes on', 'belair', async (page) => {
      const email = 'reg-pin@belair.example';
      const seenEmail = await seenMail(suite.server, email);
      await v.identify(page, 'belair', people.pin);
      await v.choose(page, m['smartRegistration.options.pin'], m['smartRegistration.pin.title']);
      await page.getByRole('img', { name: m['smartRegistration.pin.imageTitle'] }).waitFor();
      assert.equal(await page.getByRole('button', { name: m['smartRegistration.code.resend'] }).count(), 0);
      await v.enter(page, m['form.pin'], 'zz99zz99');
      await v.refused(page, m['smartRegistration.pin.wrong.other'].split('{count}')[0] ?? '');
      await v.enter(page, m['form.pin'], PIN.toLowerCase());
      await v.keepEmail(page, email);
      await emailCode(page, email, seenEmail);
      await v.create(page, email, people.pin.policy.belair);
    });

    registrationTest('belair, another username: the email on file is taken; EMAIL_ALREADY_EXISTS, then a new one', 'belair', async (page) => {
      const demo = 'demo@belair.example';
      const seen = await identifyWithOneOption(page, 'belair', people.askUsername, demo);
      await typeCode(page, demo, seen);
      await arrive(page, m['smartRegistration.email.title']);
      assert.equal(pathOf(page), '/create-an-account/verify/email');
      await v.submitEmail(page, demo);
      await v.refused(page, m['smartRegistration.email.taken'].replace('{email}', demo));
      assert.equal(pathOf(page), '/create-an-account/verify/email');
      const email = `ugo.${language}@example.com`;
      const seenNew = await seenMail(suite.server, email);
      await v.submitEmail(page, email);
      await emailCode(page, email, seenNew);
      await v.create(page, email, people.askUsername.policy.belair);
    });

    registrationTest('intact, wrong codes: a message with the tries left, then exceeded retries to identity-verification', 'intact', async (page) => {
      const to = 'reg-email@intact.example';
      const seen = await identifyWithOneOption(page, 'intact', people.email, to);
      const right = codeOf(await waitForMail(suite.server, to, 'registration-code', seen));
      const wrong = right === '000000' ? '111111' : '000000';
      await v.enter(page, m['form.code'], wrong);
      await v.refused(page, m['smartRegistration.code.wrong.other'].replace('{count}', '4'));
      const roadblock = page.getByRole('heading', { level: 1, name: m['smartRegistration.roadblock.identityVerification.title'] });
      for (let i = 0; i < 5 && !(await roadblock.isVisible()); i++) {
        await v.enter(page, m['form.code'], wrong);
        await page.waitForFunction(() => !document.querySelector('button[type="submit"][disabled]'));
      }
      await arrive(page, m['smartRegistration.roadblock.identityVerification.title']);
      assert.equal(pathOf(page), '/create-an-account/identity-verification');
      await v.button(page, m['smartRegistration.roadblock.backToLogin']);
      await arrive(page, m['login.title']);
    });

    registrationTest('belair, an additional driver is handed to legacy registration', 'belair', async (page) => {
      await press(page, page.getByRole('radio', { name: m['smartRegistration.accountType.insuredDriver'] }));
      await v.button(page, m['smartRegistration.next']);
      await arrive(page, m['registration.identification.title']);
      assert.equal(pathOf(page), '/registration/identification');
    });

    registrationTest('the account type: its help page closes back to it; the browser’s back and Back to login go to /', 'intact', async (page) => {
      await press(page, page.getByRole('link', { name: m['smartRegistration.accountType.help'] }));
      await arrive(page, m['smartRegistration.help.title']);
      assert.equal(pathOf(page), '/create-an-account/identification/account-type-help');
      await v.button(page, m['smartRegistration.help.close']);
      await arrive(page, m['smartRegistration.accountType.title']);
      await page.goBack();
      await arrive(page, m['login.title']);
      assert.equal(pathOf(page), '/');
      await press(page, page.getByRole('link', { name: m['login.createAccount'] }));
      await arrive(page, m['smartRegistration.accountType.title']);
      await v.button(page, m['smartRegistration.backToLogin']);
      await arrive(page, m['login.title']);
      assert.equal(pathOf(page), '/');
    });

    test('the guard: a step page without its session goes to the account type keeping the query string; an unknown page is not-found', async () => {
      for (const path of ['/create-an-account/identification', '/create-an-account/verify/code', '/create-an-account/verify/email', '/create-an-account/create']) {
        const { page } = await v.pages.open(suite.server.url('belair', `${path}?lang=${language}&from=x`));
        await page.waitForURL((url) => url.pathname === ACCOUNT_TYPE);
        assert.equal(pathOf(page), `${ACCOUNT_TYPE}?lang=${language}&from=x`, path);
        await arrive(page, m['smartRegistration.accountType.title'], { focus: false });
      }
      const { page } = await v.pages.open(suite.server.url('belair', `/create-an-account/confirmation?lang=${language}`));
      // No credentials held: /.
      await page.waitForURL((url) => url.pathname === '/');
      await page.goto(suite.server.url('belair', `/create-an-account/nothing-here?lang=${language}`));
      await page.waitForURL((url) => url.pathname === '/not-found');
    });
  });
}

describe('an ended session (the server\'s clock moved past its 30 minutes)', () => {
  const suite = serverForSuite(browser);

  for (const language of /** @type {const} */ (['en', 'fr'])) {
    test(`${language}: the next call after it ended goes back to the account type, which says so`, async () => {
      const v = visitor(language);
      const { m } = v;
      const { page, errors } = await v.start(suite.server, 'belair');
      try {
        await v.button(page, m['smartRegistration.next']);
        await arrive(page, m['smartRegistration.identification.title']);
        // The session slides with each answer, the last one before this page
        // arrived; 30 minutes and a second later it has ended for sure.
        await advanceClock(suite.server, '30m1s');
        await press(page, page.getByRole('button', { name: m['smartRegistration.back'], exact: true }));
        await page.getByRole('alert').filter({ hasText: m['smartRegistration.accountType.sessionEnded'] }).waitFor();
        await arrive(page, m['smartRegistration.accountType.title']);
        assert.equal(pathOf(page), ACCOUNT_TYPE);
        assert.deepEqual(realErrors(errors), []);
      } finally {
        await v.pages.close();
      }
    });
  }
});
