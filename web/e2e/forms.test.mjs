// Browser tests of the form components (issue 3) on /_dev/forms against the
// built binary: masking, upper-casing, paste, errors and focus on submit,
// normalized values, axe in each state, in English and French.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkA11y, startSuite, withOpenPage } from './harness.mjs';

const { server, browser, pages } = await startSuite();

const text = {
  en: {
    title: 'Form components',
    empty: 'Empty',
    filled: 'Filled',
    errors: 'With errors',
    disabled: 'Disabled',
    email: 'Email address',
    emailConfirmation: 'Confirm your email address',
    newPassword: 'New password',
    passwordConfirmation: 'Confirm your new password',
    password: 'Password',
    show: 'Show password',
    hide: 'Hide password',
    firstName: 'First name',
    lastName: 'Last name',
    dateOfBirth: 'Date of birth',
    day: 'Day',
    month: 'Month',
    year: 'Year',
    september: 'September',
    phone: 'Phone number',
    postalCode: 'Postal code',
    policyNumber: 'Policy number',
    licenceProvince: 'Province that issued your driver’s licence',
    driverLicence: 'Driver’s licence number',
    code: 'Security code',
    pin: 'PIN',
    terms: /I have read and accept the Terms of Use/,
    submit: 'Submit',
    summary: 'Please correct the following errors',
    emailRequired: 'Enter your email address.',
    phoneRequired: 'Enter your phone number.',
    termsRequired: 'You must agree to the Terms of Use to sign up.',
    errorPrefix: 'Error:',
    sent: 'Values sent',
    serverError: 'A message from the server about the whole form.',
  },
  fr: {
    title: 'Composants de formulaire',
    empty: 'Vides',
    filled: 'Remplis',
    errors: 'Avec erreurs',
    disabled: 'Désactivés',
    email: 'Adresse courriel',
    emailConfirmation: 'Confirmez votre adresse courriel',
    newPassword: 'Nouveau mot de passe',
    passwordConfirmation: 'Confirmez votre nouveau mot de passe',
    password: 'Mot de passe',
    show: 'Afficher le mot de passe',
    hide: 'Masquer le mot de passe',
    firstName: 'Prénom',
    lastName: 'Nom de famille',
    dateOfBirth: 'Date de naissance',
    day: 'Jour',
    month: 'Mois',
    year: 'Année',
    september: 'septembre',
    phone: 'Numéro de téléphone',
    postalCode: 'Code postal',
    policyNumber: 'Numéro de police',
    licenceProvince: 'Province de délivrance de votre permis de conduire',
    driverLicence: 'Numéro de permis de conduire',
    code: 'Code de sécurité',
    pin: 'NIP',
    terms: /J’ai lu et j’accepte les conditions d’utilisation/,
    submit: 'Soumettre',
    summary: 'Veuillez corriger les erreurs suivantes',
    emailRequired: 'Entrez votre adresse courriel.',
    phoneRequired: 'Entrez votre numéro de téléphone.',
    termsRequired: 'Vous devez accepter les conditions d’utilisation pour vous inscrire.',
    errorPrefix: 'Erreur\u00a0:',
    sent: 'Valeurs envoyées',
    serverError: 'Un message du serveur au sujet de tout le formulaire.',
  },
};

/**
 * The focused element: its role attribute, accessible-name source and id.
 * @param {import('playwright-core').Page} page
 */
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    return { id: el?.id ?? '', role: el?.getAttribute('role') ?? '', tag: el?.tagName.toLowerCase() ?? '' };
  });
}

/**
 * Puts text on the clipboard and pastes it into a control with Ctrl+V, as a visitor does.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').Locator} input
 * @param {string} value
 */
async function paste(page, input, value) {
  await page.evaluate((v) => navigator.clipboard.writeText(v), value);
  await input.focus();
  await input.press('ControlOrMeta+A');
  await input.press('ControlOrMeta+V');
}

/**
 * The message an invalid control is described by.
 * @param {import('playwright-core').Locator} control
 */
async function description(control) {
  const ids = (await control.getAttribute('aria-describedby')) ?? '';
  return control.page().evaluate(
    (list) => list.split(' ').map((id) => document.getElementById(id)?.textContent ?? `#${id} missing`).join(' | '),
    ids,
  );
}

for (const language of /** @type {const} */ (['en', 'fr'])) {
  describe(`/_dev/forms in ${language}`, () => {
    const l = text[language];

    test('shows every state and passes axe', async () => {
      const { page, errors } = await pages.open(server.url('belair', `/_dev/forms?province=on&lang=${language}`));
      await page.getByRole('heading', { level: 1, name: l.title }).waitFor();
      assert.equal(await page.locator('html').getAttribute('lang'), language);
      for (const name of [l.empty, l.filled, l.errors, l.disabled]) {
        const form = page.getByRole('form', { name });
        assert.equal(await form.getByRole('group', { name: l.dateOfBirth }).count(), 1, `${name}: date of birth`);
        assert.equal(await form.getByLabel(l.phone, { exact: true }).count(), 1, `${name}: phone`);
      }
      const filled = page.getByRole('form', { name: l.filled });
      assert.equal(await filled.getByLabel(l.phone, { exact: true }).inputValue(), '514-555-0123');
      assert.equal(await filled.getByLabel(l.postalCode, { exact: true }).inputValue(), 'H2X 1Y4');
      assert.equal(await filled.getByLabel(l.driverLicence, { exact: true }).inputValue(), 'A1234-123456-12');
      const disabled = page.getByRole('form', { name: l.disabled });
      assert.equal(await disabled.getByLabel(l.email, { exact: true }).isDisabled(), true);
      assert.equal(await disabled.getByRole('button', { name: l.submit }).isDisabled(), true);

      const withErrors = page.getByRole('form', { name: l.errors });
      const summary = withErrors.getByRole('alert').filter({ has: page.getByRole('heading', { name: l.summary }) });
      await summary.waitFor();
      assert.equal(await summary.getByRole('link').count(), 15);
      await withErrors.getByRole('alert').filter({ hasText: l.serverError }).waitFor();
      const email = withErrors.getByLabel(l.email, { exact: true });
      assert.equal(await email.getAttribute('aria-invalid'), 'true');
      assert.match(await description(email), new RegExp(`^${l.errorPrefix} `));
      await checkA11y(page);
      assert.deepEqual(errors, []);
    });

    test('submitting empty fields moves the focus to the error summary', async () => {
      const { page, errors } = await pages.open(server.url('belair', `/_dev/forms?province=on&lang=${language}`));
      const form = page.getByRole('form', { name: l.empty });
      await form.getByRole('button', { name: l.submit }).click();
      const summary = form.getByRole('alert').filter({ has: page.getByRole('heading', { name: l.summary }) });
      await summary.waitFor();
      const active = await focused(page);
      assert.equal(active.role, 'alert', 'the summary has the focus');
      assert.equal(await summary.evaluate((el) => el === document.activeElement), true);
      const links = await summary.getByRole('link').allTextContents();
      assert.equal(links.length, 15);
      assert.ok(links.includes(l.emailRequired) && links.includes(l.phoneRequired) && links.includes(l.termsRequired), links.join(' / '));

      const email = form.getByLabel(l.email, { exact: true });
      assert.equal(await email.getAttribute('aria-invalid'), 'true');
      assert.equal(await description(email), `${l.errorPrefix} ${l.emailRequired}`);
      const dateGroup = form.getByRole('group', { name: l.dateOfBirth });
      assert.notEqual(await dateGroup.getAttribute('aria-describedby'), null);
      assert.equal(await dateGroup.getByLabel(l.day, { exact: true }).getAttribute('aria-invalid'), 'true');
      await checkA11y(page);

      // A link of the summary takes the focus to its field.
      await summary.getByRole('link', { name: l.phoneRequired }).click();
      const phone = form.getByLabel(l.phone, { exact: true });
      assert.equal(await phone.evaluate((el) => el === document.activeElement), true);

      // After a submit, leaving a corrected field clears its message; the
      // summary stays as it was until the next submit rebuilds it, so
      // nothing above the button moves (issue 12, e2e/first-click.test.mjs).
      await email.fill('jean@example.com');
      await email.blur();
      assert.equal(await email.getAttribute('aria-invalid'), null);
      assert.equal(await summary.getByRole('link', { name: l.emailRequired }).count(), 1);
      await form.getByRole('button', { name: l.submit }).click();
      await summary.getByRole('link', { name: l.phoneRequired }).waitFor();
      assert.equal(await summary.getByRole('link', { name: l.emailRequired }).count(), 0);
      assert.equal(await summary.evaluate((el) => el === document.activeElement), true);
      assert.deepEqual(errors, []);
    });

    test('masks, upper-cases and takes pasted values; sends the normalized values', () =>
      withOpenPage(browser, server.url('belair', `/_dev/forms?province=on&lang=${language}`), {}, async ({ context, page, errors }) => {
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
        const form = page.getByRole('form', { name: l.empty });

        const phone = form.getByLabel(l.phone, { exact: true });
        assert.equal(await phone.getAttribute('autocomplete'), 'tel-national');
        await phone.pressSequentially('514a555b0123');
        assert.equal(await phone.inputValue(), '514-555-0123');
        // Backspace right after a dash takes the dash and the digit before it.
        await phone.evaluate((el) => /** @type {HTMLInputElement} */ (el).setSelectionRange(4, 4));
        await phone.press('Backspace');
        assert.equal(await phone.inputValue(), '515-550-123');
        assert.equal(await phone.evaluate((el) => /** @type {HTMLInputElement} */ (el).selectionStart), 2);
        await paste(page, phone, '+1 (514) 555-0199');
        assert.equal(await phone.inputValue(), '514-555-0199');

        const postal = form.getByLabel(l.postalCode, { exact: true });
        await postal.pressSequentially('h2x1y4');
        assert.equal(await postal.inputValue(), 'H2X 1Y4');
        await postal.fill('h3z-2y7');
        assert.equal(await postal.inputValue(), 'H3Z 2Y7');

        // belair's format in on: 7 letters shown as AAA-AAAA.
        const policy = form.getByLabel(l.policyNumber, { exact: true });
        await policy.pressSequentially('abcdefgh');
        assert.equal(await policy.inputValue(), 'ABC-DEFG');

        await form.getByLabel(l.licenceProvince, { exact: true }).selectOption('qc');
        const licence = form.getByLabel(l.driverLicence, { exact: true });
        await licence.fill('a123412345612');
        assert.equal(await licence.inputValue(), 'A1234-123456-12');

        const code = form.getByLabel(l.code, { exact: true });
        assert.deepEqual(
          [await code.getAttribute('inputmode'), await code.getAttribute('autocomplete'), await code.getAttribute('maxlength')],
          ['numeric', 'one-time-code', '6'],
        );
        await paste(page, code, '123 456');
        assert.equal(await code.inputValue(), '123456');
        await code.pressSequentially('7');
        assert.equal(await code.inputValue(), '123456');

        const pin = form.getByLabel(l.pin, { exact: true });
        await pin.fill('ab12-cd34');
        assert.equal(await pin.inputValue(), 'AB12CD34');

        await form.getByLabel(l.email, { exact: true }).fill('  Jean.Tremblay@example.com ');
        await form.getByLabel(l.emailConfirmation, { exact: true }).fill('jean.tremblay@EXAMPLE.com');
        const newPassword = form.getByLabel(l.newPassword, { exact: true });
        assert.equal(await newPassword.getAttribute('autocomplete'), 'new-password');
        await newPassword.fill('Green#Lamp42');
        await form.getByLabel(l.passwordConfirmation, { exact: true }).fill('Green#Lamp42');
        const password = form.getByLabel(l.password, { exact: true });
        assert.equal(await password.getAttribute('autocomplete'), 'current-password');
        await password.fill('  any  thing');
        const show = form.getByRole('button', { name: l.show }).last();
        assert.equal(await show.getAttribute('aria-pressed'), null);
        await show.click();
        // The toggle now says what it would do: hide the password it shows.
        assert.equal(await password.getAttribute('type'), 'text');
        assert.equal(await form.getByRole('button', { name: l.hide }).count(), 1);
        await form.getByLabel(l.firstName, { exact: true }).fill('Marie-Ève');
        await form.getByLabel(l.lastName, { exact: true }).fill('O’Brien');
        const date = form.getByRole('group', { name: l.dateOfBirth });
        await date.getByLabel(l.day, { exact: true }).pressSequentially('7a');
        await date.getByLabel(l.month, { exact: true }).selectOption({ label: l.september });
        await date.getByLabel(l.year, { exact: true }).fill('1980');
        await form.getByRole('checkbox', { name: l.terms }).check();

        const submit = form.getByRole('button', { name: l.submit });
        // The demo form's "server call" is a 300 ms timer: on the page's clock, held
        // until the test has seen the submitting state, however slow the machine.
        await page.clock.install();
        await submit.click();
        assert.equal(await submit.getAttribute('aria-busy'), 'true');
        await page.clock.runFor(300);
        await page.clock.resume();
        const status = page.getByRole('region', { name: l.empty }).getByRole('status');
        await status.filter({ hasText: l.sent }).waitFor();
        const sent = JSON.parse(((await status.textContent()) ?? '').slice(l.sent.length + 1));
        assert.deepEqual(sent, {
          email: 'Jean.Tremblay@example.com',
          emailConfirmation: 'jean.tremblay@EXAMPLE.com',
          password: 'Green#Lamp42',
          passwordConfirmation: 'Green#Lamp42',
          loginPassword: 'any thing',
          firstName: 'Marie-Ève',
          lastName: "O'Brien",
          dateOfBirth: '1980-09-07',
          phone: '5145550199',
          postalCode: 'H3Z 2Y7',
          policyNumber: 'ABCDEFG',
          licenceProvince: 'qc',
          driverLicence: 'A123412345612',
          code: '123456',
          pin: 'AB12CD34',
          terms: true,
        });
        assert.equal(await submit.getAttribute('aria-busy'), null);
        assert.equal(await form.getByRole('alert').filter({ has: page.getByRole('heading', { name: l.summary }) }).count(), 0);
        await checkA11y(page);
        assert.deepEqual(errors, []);
      }));
  });
}

test('the header language toggle switches the page between English and French', async () => {
  const { page, errors } = await pages.open(server.url('belair', '/_dev/forms?province=qc&lang=en'));
  await page.getByRole('heading', { level: 1, name: text.en.title }).waitFor();
  await page.getByRole('button', { name: 'Français' }).click();
  await page.getByRole('heading', { level: 1, name: text.fr.title }).waitFor();
  const form = page.getByRole('form', { name: text.fr.empty });
  const months = await form.getByLabel(text.fr.month, { exact: true }).locator('option').allTextContents();
  assert.equal(months[9], text.fr.september);
  await form.getByRole('button', { name: text.fr.submit }).click();
  await form.getByRole('link', { name: text.fr.emailRequired }).waitFor();
  await checkA11y(page);
  assert.deepEqual(errors, []);
});
