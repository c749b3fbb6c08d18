// Browser test of issue 28 item 2: spec §4.2 "202 goes to email-sent". The
// sample brand scotia proves an email by link (config/brands/scotia.yaml
// emailProof: link; docs/registration-demo.md): the email submission answers
// 202, the visitor sees email-sent, the link arrives in the dev mailbox in the
// registration's language, and opening it (in another browser context, as
// from a mail client: no flow state) continues the registration to a new
// account. A wrong link and a used one say so. The server's output must hold
// no link token (the harness keeps every token=… the mailbox shows).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { arrive, codeOf, localeCookies, openPage, pathOf, press, realErrors, seenMail, startSuite, typeInto, waitForMail } from './harness.mjs';
import { DOB, LICENCE, NEW_PASSWORD, POSTAL, registrationMessages } from './demo.mjs';

/** What the visitor reads, by language. */
const messages = registrationMessages();

const BRAND = 'scotia';

const { server, browser } = await startSuite();

/**
 * The link of an email-proof message.
 * @param {{ text: string }} mail
 */
function linkOf(mail) {
  const match = /https?:\/\/\S+\/registration\/confirm-email\?\S+/.exec(mail.text);
  if (!match) throw new Error(`no confirm-email link in: ${mail.text}`);
  return match[0];
}

for (const language of /** @type {const} */ (['en', 'fr'])) {
  const m = messages[language];
  const cookies = localeCookies('on', language);
  // French on the narrowest phone (320 px); English at the default desktop width.
  const viewport = language === 'fr' ? { width: 320, height: 640 } : undefined;
  /** @param {string} url */
  const open = (url) => openPage(browser, url, viewport ? { cookies, viewport } : { cookies });

  /**
   * Identification of a demo person, Next pressed.
   * @param {import('playwright-core').Page} page
   * @param {{ policy: string; first: string; last: string }} person
   */
  async function identify(page, person) {
    await typeInto(page, page.getByLabel(m['form.policyNumber'], { exact: true }), person.policy);
    await typeInto(page, page.getByLabel(m['form.firstName'], { exact: true }), person.first);
    await typeInto(page, page.getByLabel(m['form.lastName'], { exact: true }), person.last);
    await typeInto(page, page.getByLabel(m['form.day'], { exact: true }), DOB.day);
    await page.keyboard.press('Tab');
    await page.keyboard.type(DOB.month[language]);
    await typeInto(page, page.getByLabel(m['form.year'], { exact: true }), DOB.year);
    await typeInto(page, page.getByLabel(m['form.postalCode'], { exact: true }), POSTAL);
    await typeInto(page, page.getByLabel(m['form.driverLicence'], { exact: true }), LICENCE);
    await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
  }

  /**
   * The email page (account-creation/email or new-email): the email twice,
   * Next; the real 202 opens email-sent, and the link arrives by email.
   * @param {import('playwright-core').Page} page
   * @param {string} email
   * @returns {Promise<string>} the link
   */
  async function submitEmail(page, email) {
    const seen = await seenMail(server, email);
    await typeInto(page, page.getByLabel(m['form.email'], { exact: true }), email);
    await typeInto(page, page.getByLabel(m['registration.email.confirmation']), email);
    const answered = page.waitForResponse((r) => /\/api\/v1\/registrations\/[^/]+\/validations\/[^/]+\/$/.test(new URL(r.url()).pathname));
    await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
    assert.equal((await answered).status(), 202);
    await arrive(page, m['registration.emailSent.title']);
    assert.equal(pathOf(page), '/registration/email-sent');
    await page.getByText(m['registration.emailSent.text'].split('{email}')[0] ?? '').waitFor();
    await page.getByText(m['registration.emailSent.expiry']).waitFor();
    const mail = await waitForMail(server, email, 'registration-invite', seen);
    const link = linkOf(mail);
    assert.match(link, new RegExp(`^http://${BRAND}\\.localhost:${server.port}/registration/confirm-email\\?`));
    assert.equal(new URL(link).searchParams.get('lang'), language);
    // The registration's language: the email's words are the template's of that language.
    assert.match(mail.text, language === 'fr' ? /confirmer votre adresse courriel/ : /confirm your email address/);
    return link;
  }

  /**
   * Opens a link as a mail client does: a new browser context, no flow state.
   * @param {string} link
   */
  async function openLink(link) {
    const opened = await open(link);
    await opened.page.getByRole('heading', { level: 1 }).waitFor();
    return opened;
  }

  /**
   * The password page reached from the link: the account is created and /my-account lists the policy.
   * @param {import('playwright-core').Page} page
   * @param {string} policy
   */
  async function createAccount(page, policy) {
    await arrive(page, m['registration.password.title'], { focus: false });
    assert.equal(pathOf(page), '/registration/account-creation/password');
    assert.ok(!page.url().includes('token='), 'the token left the address');
    await typeInto(page, page.getByLabel(m['registration.password.password'], { exact: true }), NEW_PASSWORD);
    await typeInto(page, page.getByLabel(m['registration.password.confirmation']), NEW_PASSWORD);
    await press(page, page.getByRole('checkbox'));
    await press(page, page.getByRole('button', { name: m['registration.password.submit'] }));
    await page.waitForURL((url) => url.pathname === '/my-account');
    await arrive(page, m['account.title']);
    await page.getByText(policy.replace(/^(...)/, '$1-')).first().waitFor();
  }

  describe(`email proof by link (${BRAND}, ${language})`, () => {
    test(
      language === 'en'
        ? 'ask-email: 202 → email-sent; a wrong link says so; the right one creates the account; used, it says so'
        : 'ask-username: code, then new-email → 202 → email-sent; the link (in French) creates the account',
      async () => {
        const { context, page, errors } = await open(server.url(BRAND, `/registration/identification?lang=${language}`));
        /** @type {string[]} */
        const linkErrors = [];
        try {
          await arrive(page, m['registration.identification.title'], { focus: false });
          let email = '';
          let policy = '';
          if (language === 'en') {
            // REG-0004 Alice Sansfil: nothing on file, ask-email alone.
            policy = 'REG0004';
            email = 'alice.link@example.com';
            await identify(page, { policy, first: 'Alice', last: 'Sansfil' });
            await arrive(page, m['registration.email.title']);
            assert.equal(pathOf(page), '/registration/account-creation/email');
          } else {
            // REG-0005 Ugo Pris: the email on file is the demo account's; its code, then new-email.
            policy = 'REG0005';
            email = 'ugo.lien@example.com';
            const owner = `demo@${BRAND}.example`;
            const seen = await seenMail(server, owner);
            await identify(page, { policy, first: 'Ugo', last: 'Pris' });
            await arrive(page, m['registration.validation.title']);
            await press(page, page.getByRole('radio', { name: /@/ }));
            await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
            await arrive(page, m['registration.code.title']);
            const code = codeOf(await waitForMail(server, owner, 'registration-code', seen));
            await typeInto(page, page.getByLabel(m['form.code'], { exact: true }), code);
            await press(page, page.getByRole('button', { name: m['registration.next'], exact: true }));
            await arrive(page, m['registration.newEmail.title']);
            assert.equal(pathOf(page), '/registration/account-creation/new-email');
          }
          const link = await submitEmail(page, email);

          if (language === 'en') {
            // A wrong link (one character changed): the page says so and offers to start again.
            const url = new URL(link);
            const token = url.searchParams.get('token') ?? '';
            url.searchParams.set('token', (token.startsWith('A') ? 'B' : 'A') + token.slice(1));
            const wrong = await openLink(url.href);
            try {
              await arrive(wrong.page, m['registration.confirmEmail.title'], { focus: false });
              await wrong.page.getByRole('alert').filter({ hasText: m['registration.confirmEmail.wrong'] }).waitFor();
              await wrong.page.getByRole('link', { name: m['registration.confirmEmail.restart'] }).waitFor();
              assert.equal(new URL(wrong.page.url()).pathname, '/registration/confirm-email');
              assert.ok(!wrong.page.url().includes('token='), 'the token left the address');
              linkErrors.push(...realErrors(wrong.errors));
            } finally {
              await wrong.context.close();
            }
          }

          const opened = await openLink(link);
          try {
            await createAccount(opened.page, policy);
            linkErrors.push(...realErrors(opened.errors));
          } finally {
            await opened.context.close();
          }

          // The link works once.
          const again = await openLink(link);
          try {
            await arrive(again.page, m['registration.confirmEmail.title'], { focus: false });
            await again.page.getByRole('alert').filter({ hasText: m['registration.confirmEmail.used'] }).waitFor();
            await press(again.page, again.page.getByRole('link', { name: m['registration.confirmEmail.restart'] }));
            await arrive(again.page, m['registration.identification.title']);
            linkErrors.push(...realErrors(again.errors));
          } finally {
            await again.context.close();
          }
          assert.deepEqual(realErrors(errors), []);
          assert.deepEqual(linkErrors, []);
        } finally {
          await context.close();
        }
      },
    );
  });
}
