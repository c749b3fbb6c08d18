// My account's data rights (issue 31, Quebec's Law 25 and PIPEDA), at
// 320 px and in French: the customer asks for a copy of their data, the
// server prepares it in the background and emails them; they download it
// as a file (JSON; their sign-in being 11 minutes old, after proving who
// they are again inline) and as a page to read (HTML, itself accessible at
// 320 px). Then they ask for their account's deletion after a warning, and
// keep the account with the emailed link, which works once.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { PHONE_320, advanceClock, checkA11y, expectNoSidewaysScroll, signInToMyAccount, startSuite, waitForMail, withContext } from './harness.mjs';

const PASSWORD = 'Guichet-Demo-2026!';
const EMAIL = 'demo@belair.example';
const { server, browser } = await startSuite();

/**
 * The file a click on a download button saves.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').Locator} button
 */
async function downloaded(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return readFile(/** @type {string} */ (await download.path()), 'utf8');
}

test('a customer downloads their data, asks for their account’s deletion and keeps it by the emailed link', () =>
  withContext(browser, PHONE_320, async (page) => {
    await signInToMyAccount(server, page, EMAIL, PASSWORD);

    // The copy of the data: asked, prepared in the background, announced by email.
    const data = page.getByRole('region', { name: 'Vos données' });
    await data.getByRole('button', { name: 'Demander une copie de mes données' }).click();
    await data.getByRole('status').getByText('Nous préparons votre copie. Nous vous écrirons quand elle sera prête.').waitFor();
    const ready = await waitForMail(server, EMAIL, 'data-export-ready');
    assert.match(ready.text, /\/my-account\?lang=fr/);
    assert.match(ready.subject, /vos données sont prêtes/);
    await page.reload();
    await data.getByText(/Votre copie est prête\. Vous pouvez la télécharger jusqu’au/).waitFor();
    await expectNoSidewaysScroll(page, 'My account with a ready copy at 320 px');
    await checkA11y(page);

    // Eleven minutes on, the sign-in no longer counts as a proof: the
    // download asks for the password inline, then goes on.
    await advanceClock(server, '11m');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      (async () => {
        await data.getByRole('button', { name: 'Télécharger le fichier (JSON)' }).click();
        const prompt = data.getByRole('region', { name: 'Confirmez votre identité' });
        await prompt.getByLabel('Mot de passe actuel').fill(PASSWORD);
        await checkA11y(page);
        await prompt.getByRole('button', { name: 'Confirmer' }).click();
      })(),
    ]);
    const json = JSON.parse(await readFile(/** @type {string} */ (await download.path()), 'utf8'));
    assert.equal(json.sections.account.email, EMAIL);
    assert.ok(Array.isArray(json.sections.policies) && json.sections.policies.length > 0);
    assert.doesNotMatch(JSON.stringify(json), /argon2/);
    const html = await downloaded(page, data.getByRole('button', { name: 'Télécharger la page à lire (HTML)' }));
    assert.match(html, /<html lang="fr-CA">/);
    assert.ok(html.includes(EMAIL), 'the page names the account’s email');
    // The page to read is itself accessible, and fits a phone.
    const reader = await page.context().newPage();
    await reader.setContent(html);
    await reader.getByRole('heading', { level: 1, name: /Vos données chez/ }).waitFor();
    await expectNoSidewaysScroll(reader, 'the export page at 320 px');
    await checkA11y(reader);
    await reader.close();

    // The deletion: a warning first, then pending with its date.
    const deletion = page.getByRole('region', { name: 'Supprimer mon compte' });
    await deletion.getByRole('button', { name: 'Supprimer mon compte' }).click();
    const warning = deletion.getByRole('heading', { name: 'Avant de supprimer votre compte' });
    await warning.waitFor();
    assert.equal(await warning.evaluate((h) => h === document.activeElement), true);
    await deletion.getByText(/Vos polices d’assurance demeurent/).waitFor();
    await expectNoSidewaysScroll(page, 'the deletion warning at 320 px');
    await checkA11y(page);
    await deletion.getByRole('button', { name: 'Oui, supprimer mon compte' }).click();
    await deletion.getByText(/^Votre compte sera supprimé le /).waitFor();
    await checkA11y(page);

    // The emailed link keeps the account, once.
    const mail = await waitForMail(server, EMAIL, 'account-deletion');
    const link = /https?:\/\/\S+\/undo-deletion\?\S+/.exec(mail.text)?.[0];
    assert.ok(link, `an undo link in ${mail.text}`);
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Garder votre compte' }).waitFor();
    await expectNoSidewaysScroll(page, '/undo-deletion at 320 px');
    await checkA11y(page);
    await page.getByRole('button', { name: 'Garder mon compte' }).click();
    await page.getByText('Votre compte ne sera pas supprimé. Vous pouvez vous connecter comme avant.').waitFor();
    await checkA11y(page);
    await page.goto(link);
    await page.getByRole('button', { name: 'Garder mon compte' }).click();
    await page.getByText(/Ce lien a déjà servi/).waitFor();

    // My account: nothing pending any more.
    await page.goto(server.url('belair', '/my-account'));
    await deletion.getByRole('button', { name: 'Supprimer mon compte' }).waitFor();
    assert.equal(await deletion.getByText(/^Votre compte sera supprimé le /).count(), 0);
  }));
