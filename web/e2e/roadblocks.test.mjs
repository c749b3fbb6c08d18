// Browser tests of the roadblock pages (spec §2.6, issue 5) and the soft
// roadblock modal (§8.2), against the built binary.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkA11y, pageViews, siteConfig, startSuite, waitForMail, withContext } from './harness.mjs';

const { server, browser, pages: visitor } = await startSuite();

/** Every page of the group with its English and French titles. */
const pages = [
  { page: 'technical', en: 'Something went wrong', fr: 'Un problème est survenu' },
  { page: 'block', en: 'Your access is blocked', fr: 'Votre accès est bloqué' },
  { page: 'token-expired', en: 'This link has expired', fr: 'Ce lien a expiré' },
  { page: 'two-factor', en: "We couldn't verify your identity", fr: 'Nous n’avons pas pu vérifier votre identité' },
  { page: 'forgot-password', en: 'Reset your password', fr: 'Réinitialisez votre mot de passe' },
  { page: 'inconsistency', en: "Some information in your file doesn't match", fr: 'Certains renseignements de votre dossier ne concordent pas' },
  { page: 'temporary', en: 'Your temporary password no longer works', fr: 'Votre mot de passe temporaire ne fonctionne plus' },
  { page: 'login-difficulties', en: 'Having trouble signing in?', fr: 'Vous avez de la difficulté à vous connecter\u00a0?' },
  { page: 'maintenance', en: 'Our site is under maintenance', fr: 'Notre site est en maintenance' },
  { page: 'more-than-one-profile', en: 'We found more than one profile', fr: 'Nous avons trouvé plus d’un profil' },
  { page: 'registration-difficulties', en: "We couldn't find your policy", fr: 'Nous n’avons pas trouvé votre police' },
  { page: 'no-options', en: "We can't verify your identity online", fr: 'Nous ne pouvons pas vérifier votre identité en ligne' },
  { page: 'resend-code', en: 'Too many attempts', fr: 'Trop de tentatives' },
  { page: 'resend-email', en: "We can't send another email", fr: 'Nous ne pouvons pas envoyer d’autre courriel' },
  { page: 'resend-reset-password', en: "We can't send another code", fr: 'Nous ne pouvons pas envoyer d’autre code' },
  { page: 'pin-difficulties', en: 'Having trouble with your PIN?', fr: 'Vous avez de la difficulté avec votre NIP\u00a0?' },
  { page: 'wrong-cellphone', en: 'Your account is locked for 24 hours', fr: 'Votre compte est verrouillé pendant 24\u00a0heures' },
];

/**
 * Runs `use` with a page of a fresh context whose pages start with the
 * roadblocked flag set, as the app's flows leave it (lib/flow/state.ts keeps
 * it in sessionStorage), and the page's console errors and uncaught
 * exceptions; closes the context whatever happens.
 * @param {(opened: { page: import('playwright-core').Page; errors: string[] }) => Promise<void>} use
 */
function withRoadblockedPage(use) {
  return withContext(browser, {}, async (page, context) => {
    await context.addInitScript((state) => {
      if (!sessionStorage.getItem('guichet.flow')) sessionStorage.setItem('guichet.flow', JSON.stringify(state));
    }, { roadblocked: true });
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await use({ page, errors });
  });
}

/**
 * The account id of an email, from the sign-in API as the login page calls it.
 * @param {import('playwright-core').Page} page
 * @param {string} email
 * @returns {Promise<string>}
 */
async function accountId(page, email) {
  const key = (await siteConfig(page)).brand.apiKey;
  return page.evaluate(
    async ({ apiKey, address }) => {
      const response = await fetch('/api/v1/accounts/find', {
        method: 'POST',
        headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: address }),
      });
      return (await response.json()).id;
    },
    { apiKey: key, address: email },
  );
}

/**
 * Opens a roadblock page as the account of an email (the pkms cookie the
 * sign-in leaves names it), its id asked from a roadblock page of the brand.
 * @param {import('playwright-core').Page} page
 * @param {string} brand
 * @param {string} email
 * @param {string} name the roadblock page
 */
async function openAsAccount(page, brand, email, name) {
  await page.goto(server.url(brand, '/roadblock/block'));
  await page.getByRole('heading', { level: 1 }).waitFor();
  const id = await accountId(page, email);
  await page.context().addCookies([{ name: 'pkms', value: id, url: server.url(brand, '/') }]);
  await page.goto(server.url(brand, `/roadblock/${name}`));
}

/**
 * Opens a roadblock page with the flag set. no-options and
 * pin-difficulties open only after a registration page the guard table of
 * spec §2.4 allows (lib/flow/registration-guard.ts): identification for
 * no-options (no option found), validation for pin-difficulties (with a
 * registration under way); the page moves there inside the app, as the
 * flow does.
 * @param {import('playwright-core').Page} page
 * @param {string} brand
 * @param {string} name
 * @param {string} query
 */
async function openRoadblock(page, brand, name, query) {
  if (name !== 'no-options' && name !== 'pin-difficulties') {
    await page.goto(server.url(brand, `/roadblock/${name}${query}`));
    return;
  }
  if (name === 'pin-difficulties') {
    await page.addInitScript(() => {
      const flow = JSON.parse(sessionStorage.getItem('guichet.flow') ?? '{}');
      sessionStorage.setItem('guichet.flow', JSON.stringify({ ...flow, registration: { id: 'e2e-registration', twoFactorValidations: [] } }));
    });
  }
  await page.goto(server.url(brand, `/registration/identification${query}`));
  await page.getByRole('heading', { level: 1 }).waitFor();
  /** @param {string} path */
  const move = (path) => page.evaluate((to) => window.history.pushState(null, '', to), path);
  if (name === 'pin-difficulties') {
    await move(`/registration/validation${query}`);
    await page.waitForURL((url) => url.pathname === '/registration/validation');
    await page.locator('h1#registration-validation-title').waitFor();
  }
  await move(`/roadblock/${name}${query}`);
}

describe('every roadblock page, with the flag: title, call-us card, axe', () => {
  for (const { page: name, en } of pages) {
    test(`/roadblock/${name}`, () =>
      withRoadblockedPage(async ({ page, errors }) => {
        await openRoadblock(page, 'belair', name, '?province=qc&lang=en');
        await page.getByRole('heading', { level: 1, name: en }).waitFor();
        assert.equal(await page.title(), `${en} | belairdirect`);
        const config = await siteConfig(page);
        const qc = config.brand.provinces.find((/** @type {any} */ p) => p.key === 'qc');
        const card = page.getByRole('region', { name: 'Call us' });
        assert.equal(await card.getByRole('link', { name: qc.phone }).getAttribute('href'), `tel:+1${qc.phone.replace(/\D/g, '').slice(-10)}`);
        assert.deepEqual(await card.getByRole('term').allTextContents(), ['Monday to Friday', 'Saturday', 'Sunday']);
        assert.deepEqual(await card.getByRole('definition').allTextContents(), ['8\u00a0a.m. to 8\u00a0p.m.', '8\u00a0a.m. to 5\u00a0p.m.', 'Closed']);
        await card.getByRole('button', { name: 'Back to login' }).waitFor();
        await page.waitForFunction(() => (/** @type {any} */ (window).dataLayer ?? []).length > 0);
        // The page's own view (no-options and pin-difficulties come after a registration page's).
        assert.equal((await pageViews(page)).at(-1)?.pageCategory, 'roadblock');
        await checkA11y(page);
        // wrong-cellphone asks the server for nothing here (no account known), so no errors anywhere.
        assert.deepEqual(errors, []);
      }));
  }

  test('/roadblock is the technical page', () =>
    withRoadblockedPage(async ({ page }) => {
      await page.goto(server.url('belair', '/roadblock'));
      await page.getByRole('heading', { level: 1, name: 'Something went wrong' }).waitFor();
    }));
});

describe('every roadblock page in French', () => {
  for (const { page: name, fr } of pages) {
    test(`/roadblock/${name} (bna qc fr)`, () =>
      withRoadblockedPage(async ({ page }) => {
        await openRoadblock(page, 'bna', name, '?province=qc&lang=fr');
        await page.getByRole('heading', { level: 1, name: fr }).waitFor();
        const card = page.getByRole('region', { name: 'Appelez-nous' });
        assert.deepEqual(await card.getByRole('definition').allTextContents(), ['8\u00a0h à 20\u00a0h', '8\u00a0h à 17\u00a0h', 'Fermé']);
        await card.getByRole('button', { name: 'Retour à la connexion' }).waitFor();
      }));
  }

  test('intact has no opening hours: the phone number only', () =>
    withRoadblockedPage(async ({ page }) => {
      await page.goto(server.url('intact', '/roadblock/technical'));
      const card = page.getByRole('region', { name: 'Call us' });
      await card.getByRole('link').first().waitFor();
      assert.equal(await card.getByRole('term').count(), 0);
      await checkA11y(page);
    }));
});

describe('without the flag every roadblock page goes to / keeping the query string', () => {
  for (const path of ['/roadblock', ...pages.map(({ page }) => `/roadblock/${page}`)]) {
    test(path, async () => {
      const { page, errors } = await visitor.open(server.url('belair', `${path}?province=qc&lang=en&x=1`));
      await page.waitForURL(server.url('belair', '/?province=qc&lang=en&x=1'));
      await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
      assert.deepEqual(errors, []);
    });
  }
});

test('the call-us button leaves the roadblock and clears the flag', () =>
  withRoadblockedPage(async ({ page }) => {
    await page.goto(server.url('belair', '/roadblock/block'));
    await page.getByRole('region', { name: 'Call us' }).getByRole('button', { name: 'Back to login' }).click();
    await page.waitForURL(server.url('belair', '/'));
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    const flow = await page.evaluate(() => JSON.parse(sessionStorage.getItem('guichet.flow') ?? '{}'));
    assert.equal(flow.roadblocked, false);
    await page.goto(server.url('belair', '/roadblock/block'));
    await page.waitForURL(server.url('belair', '/'));
  }));

test('the locked-account page emails LOCKED_ACCOUNT to the account of the pkms cookie', () =>
  withRoadblockedPage(async ({ page, errors }) => {
    await openAsAccount(page, 'belair', 'locked@belair.example', 'wrong-cellphone');
    await page.getByRole('heading', { level: 1, name: 'Your account is locked for 24 hours' }).waitFor();
    await page.getByRole('status').filter({ hasText: "We've sent you an email about it" }).waitFor();
    const mail = await waitForMail(server, 'locked@belair.example', 'locked-account');
    assert.ok(mail.text.length > 0);
    await checkA11y(page);
    assert.deepEqual(errors, []);
  }));

test('token expired: the button emails a new reset link and goes to /check-your-inbox', () =>
  withRoadblockedPage(async ({ page, errors }) => {
    await openAsAccount(page, 'scotia', 'demo@scotia.example', 'token-expired');
    await page.getByRole('heading', { level: 1, name: 'This link has expired' }).waitFor();
    await checkA11y(page);
    await page.getByRole('button', { name: 'Send me a new link' }).click();
    await page.waitForURL(server.url('scotia', '/check-your-inbox'));
    await page.getByRole('heading', { level: 1, name: 'Check your inbox' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Back to login' }).getAttribute('href'), '/');
    await checkA11y(page);
    const mail = await waitForMail(server, 'demo@scotia.example', 'reset-link');
    assert.match(mail.text, /http:\/\/scotia\.localhost:\d+\//);
    assert.deepEqual(errors, []);
  }));

test('the soft roadblock modal: phone, hours and code; Escape closes it and focus returns', () =>
  withContext(browser, {}, async (page, context) => {
    // Guichet's own sign-in never answers EMAIL_UPDATE_FAILED; the answer is
    // staged so the modal the error catalogue opens can be checked in a browser.
    await context.route('**/api/v1/accounts/*/authentication', (route) =>
      route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ errorCode: 'EMAIL_UPDATE_FAILED', messageKey: 'x' }) }),
    );
    await page.goto(server.url('belair', '/'));
    await page.getByLabel('Email address').fill('demo@belair.example');
    await page.getByLabel('Password', { exact: true }).fill('Guichet-Demo-2026!');
    const submit = page.getByRole('button', { name: 'Sign in', exact: true });
    await submit.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: "It's not you, it's us" });
    await dialog.waitFor();
    await dialog.getByText('Error code: lnr500160').waitFor();
    await dialog.getByText("We can't access your account right now.", { exact: false }).waitFor();
    const config = await siteConfig(page);
    const on = config.brand.provinces.find((/** @type {any} */ p) => p.key === config.province);
    await dialog.getByRole('link', { name: on.phone }).waitFor();
    assert.deepEqual(await dialog.getByRole('term').allTextContents(), ['Monday to Friday', 'Saturday', 'Sunday']);
    assert.equal(await dialog.getByRole('button', { name: 'Close' }).evaluate((el) => el === document.activeElement), true);
    await checkA11y(page);

    // Tab stays inside the dialog.
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      assert.equal(await dialog.evaluate((el) => el.contains(document.activeElement)), true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await submit.evaluate((el) => el === document.activeElement), true);
    assert.equal(new URL(page.url()).pathname, '/');
  }));
