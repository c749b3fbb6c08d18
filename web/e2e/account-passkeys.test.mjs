// Passkeys (issue 31) with Chromium's virtual authenticator (the DevTools
// protocol's WebAuthn domain: CTAP2, internal transport, resident keys, user
// verification): after a password sign-in My account offers once to add
// one; the passkey signs in from the login page's button and from the
// email field's autofill (conditional mediation); it is removed. axe on
// each new screen; a French run at 320 px on another brand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PHONE_320, checkA11y, expectNoSidewaysScroll, startSuite, withContext } from './harness.mjs';

const PASSWORD = 'Guichet-Demo-2026!';
const { server, browser } = await startSuite();

/**
 * Gives the page a platform authenticator that holds passkeys and verifies
 * its user at once; resolves its id and the CDP session.
 * @param {import('playwright-core').BrowserContext} context
 * @param {import('playwright-core').Page} page
 */
async function virtualAuthenticator(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

// The login page's autofill request is turned off while the button is
// tested (a virtual authenticator answers a conditional request at once).
const NO_AUTOFILL = 'e2e.noAutofill';
const withoutAutofill = `if (localStorage.getItem('${NO_AUTOFILL}') && window.PublicKeyCredential)
  PublicKeyCredential.isConditionalMediationAvailable = async () => false;`;

/**
 * @param {import('playwright-core').Page} page
 * @param {{ brand: string, lang: string, email: string, labels: Record<string, string> }} run
 */
async function passwordSignIn(page, run) {
  await page.goto(server.url(run.brand, `/?lang=${run.lang}`));
  await page.evaluate((key) => localStorage.setItem(key, '1'), NO_AUTOFILL);
  await page.reload();
  await page.getByLabel(run.labels.email).fill(run.email);
  await page.getByLabel(run.labels.password, { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: run.labels.submit, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: run.labels.account }).waitFor();
}

/** @param {import('playwright-core').Page} page @param {Record<string, string>} labels */
async function signOut(page, labels) {
  await page.getByRole('button', { name: labels.signOut }).click();
  await page.getByRole('heading', { level: 1, name: labels.login }).waitFor();
}

const english = {
  brand: 'belair',
  lang: 'en',
  email: 'demo@belair.example',
  labels: {
    email: 'Email address',
    password: 'Password',
    submit: 'Sign in',
    account: 'My account',
    login: 'Sign in to your account',
    signOut: 'Sign out',
    passkey: 'Sign in with a passkey',
    section: 'Passkeys',
  },
};

test('a passkey is offered after a password sign-in, signs in by the button and by autofill, and is removed', () =>
  withContext(browser, {}, async (page, context) => {
    await context.addInitScript(withoutAutofill);
    const { cdp, authenticatorId } = await virtualAuthenticator(context, page);
    await passwordSignIn(page, english);

    // The offer, once: this device has a platform authenticator.
    const offer = page.getByRole('region', { name: 'Sign in faster next time' });
    await offer.waitFor();
    await checkA11y(page);
    await offer.getByRole('button', { name: 'Add a passkey' }).click();
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByText('Your passkey “Passkey” was added.').waitFor();
    assert.equal(await offer.count(), 0);
    await section.getByText('Not used yet').waitFor();
    await checkA11y(page);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0].rpId, 'belair.localhost');
    assert.equal(credentials[0].isResidentCredential, true);

    // The login page's button.
    await signOut(page, english.labels);
    assert.equal(await page.getByLabel(english.labels.email).getAttribute('autocomplete'), 'username webauthn');
    await checkA11y(page);
    await page.getByRole('button', { name: english.labels.passkey }).click();
    await page.getByRole('heading', { level: 1, name: english.labels.account }).waitFor();
    await section.getByText(/^Last used /).waitFor();
    // No second offer: it was made once.
    assert.equal(await offer.count(), 0);

    // The email field's autofill (conditional mediation): the login page
    // asks as it opens; a virtual authenticator picks its one passkey at
    // once, where a person would pick it in the email field's suggestions.
    await signOut(page, english.labels);
    await page.evaluate((key) => localStorage.removeItem(key), NO_AUTOFILL);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: english.labels.account }).waitFor();
    assert.equal(await page.getByRole('button', { name: english.labels.passkey }).count(), 0);

    // Removed (the passkey sign-in was a fresh proof).
    await section.getByRole('button', { name: 'Remove Passkey' }).click();
    await section.getByText(/Your passkey “Passkey” was removed/).waitFor();
    await section.getByText('You have no passkey yet.').waitFor();
    await checkA11y(page);

    // A removed passkey signs nobody in.
    await signOut(page, english.labels);
    await page.evaluate((key) => localStorage.setItem(key, '1'), NO_AUTOFILL);
    await page.reload();
    await page.getByRole('button', { name: english.labels.passkey }).click();
    await page.getByText('This passkey could not sign you in. Sign in with your password.').waitFor();
  }));

const french = {
  brand: 'intact',
  lang: 'fr',
  email: 'demo@intact.example',
  labels: {
    email: 'Adresse courriel',
    password: 'Mot de passe',
    submit: 'Se connecter',
    account: 'Mon compte',
    login: 'Connectez-vous à votre compte',
    signOut: 'Se déconnecter',
    passkey: 'Se connecter avec une clé d’accès',
    section: 'Clés d’accès',
  },
};

test('en français à 320 px : une clé d’accès nommée, la connexion par le bouton, le retrait', () =>
  withContext(browser, PHONE_320, async (page, context) => {
    await context.addInitScript(withoutAutofill);
    await virtualAuthenticator(context, page);
    await passwordSignIn(page, french);
    const offer = page.getByRole('region', { name: 'Connectez-vous plus vite la prochaine fois' });
    await offer.waitFor();
    await expectNoSidewaysScroll(page, 'the passkey offer at 320 px');
    await checkA11y(page);
    await offer.getByRole('button', { name: 'Pas maintenant' }).click();
    assert.equal(await offer.count(), 0);

    const section = page.getByRole('region', { name: french.labels.section });
    await section.getByLabel('Nom de la clé d’accès').fill('Mon téléphone');
    await section.getByRole('button', { name: 'Ajouter une clé d’accès' }).click();
    await section.getByText('Votre clé d’accès « Mon téléphone » a été ajoutée.').waitFor();
    await expectNoSidewaysScroll(page, 'My account with a passkey at 320 px');
    await checkA11y(page);

    await signOut(page, french.labels);
    await expectNoSidewaysScroll(page, 'the login page with its passkey button at 320 px');
    await page.getByRole('button', { name: french.labels.passkey }).click();
    await page.getByRole('heading', { level: 1, name: french.labels.account }).waitFor();
    await section.getByRole('button', { name: 'Retirer Mon téléphone' }).click();
    await section.getByText(/Votre clé d’accès «\sMon téléphone\s» a été retirée/).waitFor();
    await checkA11y(page);
  }));
