// Browser tests of emailed magic-link invitations (issue 14, spec §4.2 token
// routing, §2.4 token variants, §2.6 token-expired) against the built
// binary and its --dev demo people TOK-0001..0004 (docs/registration-demo.md),
// in English (desktop) and French (a 320 px phone), axe on every page.
// Tokens are issued as an operator does: `guichet tokens issue --dev …` on
// the server's data dir (harness cli); --send puts the invitation in the dev
// mailbox, whose link the visitor follows.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { arrive, checkA11y, codeOf, pathOf, PHONE_320, pathsFrom, press, realErrors, seenMail, serverForSuite, startBrowser, typeInto, waitForMail } from './harness.mjs';
import { DOB, NEW_PASSWORD, POSTAL, registrationMessages } from './demo.mjs';

/** What the visitor reads, by language. */
const messages = registrationMessages();

const BRAND = 'belair';
const DEMO_EMAIL = `demo@${BRAND}.example`;
const DEMO_PASSWORD = 'Guichet-Demo-2026!';

/** The token demo people of docs/registration-demo.md, by the action their token reads as. */
const people = {
  /** default-password-register: a policyholder with no account. */
  register: { policy: 'TOK-0001', email: `tok-new@${BRAND}.example` },
  /** ask-username: the email on file is the demo account's. */
  username: { policy: 'TOK-0002', email: DEMO_EMAIL },
  /** ask-password: a UBI driver whose email is the demo policyholder account's. */
  ubi: { policy: 'TOK-0003', email: DEMO_EMAIL },
  /** reset-password-login: the French demo account's person (its postal code is the province's demo one). */
  account: { policy: 'TOK-0004', email: `francais@${BRAND}.example` },
};

const browser = await startBrowser();

/** The invitation link in a message. @param {{ text: string }} mail */
function linkOf(mail) {
  const match = /https?:\/\/\S+\/registration\/link\?\S+/.exec(mail.text);
  if (!match) throw new Error(`no invitation link in: ${mail.text}`);
  return match[0].replace(/[).,>]+$/, '');
}

for (const language of /** @type {const} */ (['en', 'fr'])) {
  const m = messages[language];
  describe(`invitations in ${language === 'en' ? 'English' : 'French'}`, () => {
    // The visitor's page (French on a 320 px phone), opened afresh for each link.
    const suite = serverForSuite(browser, language === 'fr' ? PHONE_320 : {});

    /**
     * `guichet tokens issue --dev` for a demo person; resolves the link it prints.
     * @param {{ policy: string; email: string }} person
     * @param {string} source
     * @param {string[]} [more]
     */
    async function issue(person, source, more = []) {
      const out = await suite.server.cli('tokens', 'issue', '--dev', '--brand', BRAND, '--policy', person.policy, '--email', person.email, '--source', source, '--language', language, ...more);
      const link = out.trim().split('\n').pop() ?? '';
      assert.match(link, /\/registration\/link\?token=[A-Za-z0-9_-]{43}&src=/);
      return link;
    }

    /**
     * Opens an invitation link as the visitor does (French on a 320 px phone);
     * the entry page reads it and takes the token out of the address.
     * @param {string} link
     */
    async function follow(link) {
      const opened = await suite.visitor.open(link);
      // The entry's heading first, or already the page the token leads to.
      await opened.page.waitForFunction(() => !location.search.includes('token='));
      return opened;
    }

    /**
     * Follows a link to the page its token leads to: its title, at its path.
     * @param {string} link
     * @param {string} title
     * @param {string} path
     */
    async function followTo(link, title, path) {
      const opened = await follow(link);
      await arrive(opened.page, title);
      assert.equal(pathOf(opened.page), path);
      return opened;
    }

    /**
     * Fills the date of birth group by mouse and keyboard.
     * @param {import('playwright-core').Page} page
     */
    async function typeDateOfBirth(page) {
      await typeInto(page, page.getByLabel(m['form.day']), DOB.day);
      await page.keyboard.press('Tab');
      await page.keyboard.type(DOB.month[language]);
      await typeInto(page, page.getByLabel(m['form.year']), DOB.year);
    }

    /**
     * @param {import('playwright-core').Page} page
     * @param {string} [policy] a policy my-account must list
     */
    async function signedIn(page, policy) {
      await page.waitForURL((url) => url.pathname === '/my-account');
      await arrive(page, m['account.title']);
      if (policy) await page.getByText(policy).first().waitFor();
    }

    test('an edoc invitation from the dev mailbox to a signed-in account; the used link then reads as expired', async () => {
      const seen = await seenMail(suite.server, people.register.email);
      await issue(people.register, 'edoc', ['--send']);
      const mail = await waitForMail(suite.server, people.register.email, 'invitation_edoc', seen);
      const link = linkOf(mail);
      assert.ok(link.startsWith(suite.server.url(BRAND, '/registration/link?')), link);
      assert.match(link, new RegExp(`[?&]lang=${language}\\b`));

      const { page, errors } = await followTo(link, m['registration.password.title'], '/registration/account-creation/password');
      // The proof of identity first: a wrong postal code is refused on its field.
      await typeInto(page, page.getByLabel(m['form.postalCode']), 'H0H 0H0');
      await typeDateOfBirth(page);
      await typeInto(page, page.getByLabel(m['registration.password.password'], { exact: true }), NEW_PASSWORD);
      await typeInto(page, page.getByLabel(m['registration.password.confirmation']), NEW_PASSWORD);
      await press(page, page.getByRole('checkbox'));
      await press(page, page.getByRole('button', { name: m['registration.password.submit'] }));
      await page.getByText(m['registration.password.wrongPostalCode']).first().waitFor();
      await checkA11y(page);
      await typeInto(page, page.getByLabel(m['form.postalCode']), POSTAL);
      const went = pathsFrom(page);
      await press(page, page.getByRole('button', { name: m['registration.password.submit'] }));
      await signedIn(page, people.register.policy);
      assert.deepEqual(went, ['/my-account'], 'from the form post straight to /my-account');
      assert.deepEqual(realErrors(errors), []);

      // The same link again: spent, the token-expired roadblock (never a second account).
      const again = await followTo(link, m['roadblock.tokenExpired.title'], '/roadblock/token-expired');
      assert.deepEqual(realErrors(again.errors), []);
    });

    test('a UBI driver links the policy to the policyholder account by its password', async () => {
      const link = await issue(people.ubi, 'BA');
      const { page, errors } = await followTo(link, m['registration.passwordValidation.title'], '/registration/password-validation');
      await typeInto(page, page.getByLabel(m['form.password'], { exact: true }), DEMO_PASSWORD);
      await typeInto(page, page.getByLabel(m['form.postalCode']), POSTAL);
      await typeDateOfBirth(page);
      await press(page, page.getByRole('button', { name: m['registration.passwordValidation.submit'] }));
      await signedIn(page, people.ubi.policy);
      assert.deepEqual(realErrors(errors), []);
    });

    test('an expired link: its roadblock, whose button emails a new reset link (RESET_PSW)', async () => {
      const start = new Date(Date.now() - 3 * 24 * 3600 * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
      const link = await issue(people.account, 'mrkt', ['--start', start, '--days', '1']);
      const seen = await seenMail(suite.server, people.account.email);
      const { page, errors } = await followTo(link, m['roadblock.tokenExpired.title'], '/roadblock/token-expired');
      await press(page, page.getByRole('button', { name: m['roadblock.sendNewLink'] }));
      await page.waitForURL((url) => url.pathname === '/check-your-inbox');
      await page.getByRole('heading', { level: 1 }).waitFor();
      await checkA11y(page);
      await waitForMail(suite.server, people.account.email, 'reset-link', seen);
      assert.deepEqual(realErrors(errors), []);
    });

    test('a person with an account: /reset with the postal code sets a new password and signs in', async () => {
      const link = await issue(people.account, 'edoc');
      const { page, errors } = await followTo(link, m['recovery.reset.title'], '/reset');
      await typeInto(page, page.getByLabel(m['form.postalCode']), POSTAL);
      await typeInto(page, page.getByLabel(m['recovery.reset.newPassword'], { exact: true }), `${NEW_PASSWORD}${language}`);
      await typeInto(page, page.getByLabel(m['recovery.reset.passwordConfirmation']), `${NEW_PASSWORD}${language}`);
      const went = pathsFrom(page);
      await press(page, page.getByRole('button', { name: m['recovery.reset.submit'] }));
      await signedIn(page);
      assert.deepEqual(went, ['/my-account'], 'from the form post straight to /my-account');
      assert.deepEqual(realErrors(errors), []);
    });

    test('ask-username: the email on file is taken, a new one gets a code, then the password page', async () => {
      const link = await issue(people.username, 'edoc');
      const { page, errors } = await followTo(link, m['registration.newEmail.title'], '/registration/account-creation/new-email');
      const email = `tok-new.${language}@example.com`;
      const seen = await seenMail(suite.server, email);
      await typeInto(page, page.getByLabel(m['form.email'], { exact: true }), email);
      await typeInto(page, page.getByLabel(m['registration.email.confirmation']), email);
      await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
      await arrive(page, m['registration.code.title']);
      const code = codeOf(await waitForMail(suite.server, email, 'registration-code', seen));
      await typeInto(page, page.getByLabel(m['form.code'], { exact: true }), code);
      await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
      await arrive(page, m['registration.password.title']);
      await typeInto(page, page.getByLabel(m['form.postalCode']), POSTAL);
      await typeDateOfBirth(page);
      await typeInto(page, page.getByLabel(m['registration.password.password'], { exact: true }), NEW_PASSWORD);
      await typeInto(page, page.getByLabel(m['registration.password.confirmation']), NEW_PASSWORD);
      await press(page, page.getByRole('checkbox'));
      await press(page, page.getByRole('button', { name: m['registration.password.submit'] }));
      await signedIn(page, people.username.policy);
      assert.deepEqual(realErrors(errors), []);
    });

    test('a tampered link, or one with another source: the page says the link is not valid, with the way to login', async () => {
      const link = await issue(people.register, 'mrkt');
      const tampered = link.replace(/token=([A-Za-z0-9_-])/, (_, c) => `token=${c === 'A' ? 'B' : 'A'}`);
      const otherSource = link.replace(/src=mrkt/, 'src=edoc');
      assert.notEqual(otherSource, link);
      for (const bad of [tampered, otherSource]) {
        const { page, errors } = await follow(bad);
        await page.getByRole('alert').filter({ hasText: m['registration.link.invalid'] }).waitFor();
        assert.equal(pathOf(page).split('?')[0], '/registration/link');
        await checkA11y(page);
        await press(page, page.getByRole('link', { name: m['registration.backToLogin'] }));
        await page.waitForURL((url) => url.pathname === '/');
        await page.getByRole('heading', { level: 1, name: m['login.title'], exact: true }).waitFor();
        assert.deepEqual(realErrors(errors), []);
      }
    });
  });
}
