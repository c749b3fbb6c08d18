// My account's email change (issue 31), at 320 px and in French: the
// session's sign-in is more than 10 minutes old, so the page asks inline
// for the password, then sends a code to the new address; the code makes
// it the account's email and username. The former address's notice holds
// the undo link: its page undoes the change on its button, signs the
// customer out everywhere and sends them to choose a new password.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PHONE_320, advanceClock, checkA11y, codeOf, expectNoSidewaysScroll, signInToMyAccount, startSuite, waitForMail, withContext } from './harness.mjs';

const PASSWORD = 'Guichet-Demo-2026!';
const EMAIL = 'demo@belair.example';
const NEW_EMAIL = 'alex.nouveau@example.com';
const { server, browser } = await startSuite();

test('a customer changes their email address after proving it is them, and the former address undoes it', () =>
  withContext(browser, PHONE_320, async (page) => {
    await signInToMyAccount(server, page, EMAIL, PASSWORD);
    await advanceClock(server, '11m');

    const form = page.getByRole('region', { name: 'Changer votre adresse courriel' });
    await form.getByLabel('Nouvelle adresse courriel').fill(NEW_EMAIL);
    await form.getByRole('button', { name: 'Envoyer un code' }).click();
    const prompt = form.getByRole('region', { name: 'Confirmez votre identité' });
    await prompt.waitFor();
    await expectNoSidewaysScroll(page, 'My account asking for the password at 320 px');
    await checkA11y(page);
    await prompt.getByLabel('Mot de passe actuel').fill(PASSWORD);
    await prompt.getByRole('button', { name: 'Confirmer' }).click();

    await form.getByText(`Nous avons envoyé un code à 6\u00a0chiffres à ${NEW_EMAIL}.`, { exact: false }).waitFor();
    const code = codeOf(await waitForMail(server, NEW_EMAIL, 'confirm-code'));
    await form.getByLabel('Code').fill(code);
    await form.getByRole('button', { name: 'Confirmer' }).click();
    await form.getByText(`Votre adresse courriel est maintenant ${NEW_EMAIL}.`, { exact: false }).waitFor();
    await checkA11y(page);

    // The former address hears of it, with the link that undoes it.
    const notice = await waitForMail(server, EMAIL, 'email-changed');
    const link = /http:\/\/\S+\/email-undo\?token=[A-Za-z0-9_-]+/.exec(notice.text)?.[0];
    assert.ok(link, `no undo link in ${notice.text}`);
    await withContext(browser, PHONE_320, async (mailbox) => {
      await mailbox.goto(link + '&lang=fr');
      await mailbox.getByRole('heading', { level: 1, name: 'Annuler le changement d’adresse courriel' }).waitFor();
      await checkA11y(mailbox);
      await mailbox.getByRole('button', { name: 'Annuler la modification' }).click();
      await mailbox.getByText(/La modification a été annulée/).waitFor();
      await mailbox.getByRole('link', { name: 'Choisir un nouveau mot de passe' }).waitFor();
      await expectNoSidewaysScroll(mailbox, 'the undo page at 320 px');
    });
    // Signed out everywhere, this browser included.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Connectez-vous à votre compte' }).waitFor();
  }));
