// My account's password change and its list of where the customer is
// signed in (issue 31), at 320 px and in French: the
// current password, the new one twice; this browser stays signed in, a
// second browser signed in as the same customer is signed out, and the new
// password signs in where the old one no longer does. The 'password
// changed' email carries the "this wasn't me" link to /forgot; the second
// browser's sign-in sent the new-device notice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PHONE_320, checkA11y, expectNoSidewaysScroll, startSuite, waitForMail, withContext } from './harness.mjs';

const OLD = 'Guichet-Demo-2026!';
const NEW = 'Harbour-Lights-2027!';
const EMAIL = 'demo@belair.example';
const { server, browser } = await startSuite();

/**
 * Signs in on the login page of a language and waits for My account.
 * @param {import('playwright-core').Page} page
 * @param {string} password
 */
async function signIn(page, password) {
  await page.goto(server.url('belair', '/?lang=fr'));
  await page.getByLabel('Adresse courriel').fill(EMAIL);
  await page.getByLabel('Mot de passe', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
}

test('a customer changes their password on My account; their other browser is signed out', () =>
  withContext(browser, {}, (elsewhere) =>
    withContext(browser, PHONE_320, async (page) => {
      await signIn(elsewhere, OLD);
      await elsewhere.getByRole('heading', { level: 1, name: 'Mon compte' }).waitFor();
      await signIn(page, OLD);
      await page.getByRole('heading', { level: 1, name: 'Mon compte' }).waitFor();
      // The second browser is new to the account: the customer hears of it,
      // in the account's language (the demo's is English).
      const notice = await waitForMail(server, EMAIL, 'new-device');
      assert.match(notice.text, /Chrome on Linux, [A-Z][a-z]+ \d+, \d{4}/);
      assert.match(notice.text, /\/forgot\?lang=fr/);

      // Where the customer is signed in: both browsers, this one marked.
      const sessions = page.getByRole('region', { name: 'Où vous êtes connecté' });
      await sessions.getByText('Cet appareil').waitFor();
      assert.equal(await sessions.getByRole('listitem').count(), 2);
      assert.equal(await sessions.getByRole('button', { name: /^Déconnecter Chrome sur Linux/ }).count(), 1);
      const form = page.getByRole('region', { name: 'Changer votre mot de passe' });
      await form.waitFor();
      await expectNoSidewaysScroll(page, 'My account with the password form at 320 px');
      await checkA11y(page);

      // A wrong current password: said at its field, nothing changes.
      await form.getByLabel('Mot de passe actuel').fill('Pas-Le-Bon-2026!');
      await form.getByLabel('Nouveau mot de passe', { exact: true }).fill(NEW);
      await form.getByLabel('Confirmez votre nouveau mot de passe').fill(NEW);
      await form.getByRole('button', { name: 'Changer le mot de passe' }).click();
      await form.getByText(/Ce n’est pas votre mot de passe actuel/).first().waitFor();
      await checkA11y(page);

      await form.getByLabel('Mot de passe actuel').fill(OLD);
      await form.getByRole('button', { name: 'Changer le mot de passe' }).click();
      await form.getByText(/Votre mot de passe a été changé/).waitFor();
      assert.equal(await form.getByLabel('Mot de passe actuel').inputValue(), '');

      // This browser stays (alone in the list); the other one is signed out at its next call.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Mon compte' }).waitFor();
      await sessions.getByText('Cet appareil').waitFor();
      assert.equal(await sessions.getByRole('listitem').count(), 1);
      await elsewhere.reload();
      await elsewhere.getByRole('heading', { level: 1, name: 'Connectez-vous à votre compte' }).waitFor();

      const mail = await waitForMail(server, EMAIL, 'password-changed');
      assert.match(JSON.stringify(mail), /\/forgot\?lang=fr/);
      assert.doesNotMatch(JSON.stringify(mail), new RegExp(NEW));

      // The old password no longer signs in; the new one does.
      await signIn(elsewhere, OLD);
      await elsewhere.getByText('L’adresse courriel ou le mot de passe est incorrect. Veuillez réessayer.').first().waitFor();
      await signIn(elsewhere, NEW);
      await elsewhere.getByRole('heading', { level: 1, name: 'Mon compte' }).waitFor();
    })));
