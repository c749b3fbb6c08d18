// Browser tests of signing in (issue 5, spec §2.2, §4.3, §8.5): the login
// page, the web SSO hand-off, /my-account and /webseal.do, against the built
// binary with its --dev demo accounts (internal/account/demo.go).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkA11y, openPage, pageViews, pathOf, realErrors, siteConfig, startSuite, withContext, withOpenPage } from './harness.mjs';

const PASSWORD = 'Guichet-Demo-2026!';
const TEMPORARY = 'Temp-Pass-2026';
const LOGIN_ERROR = 'The email or password is incorrect. Please try again.';

const { server, browser, pages } = await startSuite();

/**
 * Fills and submits the login form.
 * @param {import('playwright-core').Page} page
 * @param {string} email
 * @param {string} password
 */
async function signIn(page, email, password) {
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Signs in with a password the server refuses and waits for its answer and
 * the login error it shows.
 * @param {import('playwright-core').Page} page
 * @param {string} email
 * @param {string} password
 */
async function failSignIn(page, email, password) {
  const answered = page.waitForResponse((r) => /\/api\/v1\/accounts\/[^/]+\/(authentication|temporary)$/.test(r.url()));
  await signIn(page, email, password);
  assert.equal((await answered).status(), 400);
  await page.getByRole('alert').filter({ hasText: LOGIN_ERROR }).waitFor();
}

/**
 * GET /api/v1/me from the page, as the SPA sends it.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<number>}
 */
async function meStatus(page) {
  const key = (await siteConfig(page)).brand.apiKey;
  return page.evaluate(async (apiKey) => (await fetch('/api/v1/me', { headers: { 'X-API-KEY': apiKey } })).status, key);
}

/**
 * Makes the login's random attempt limit (3 to 6) its lowest, 3.
 * @param {import('playwright-core').BrowserContext} context
 */
const lowestLimit = (context) => context.addInitScript(() => Object.assign(Math, { random: () => 0 }));

test('signs in to /my-account and signs out; the old session no longer works', () =>
  withOpenPage(browser, server.url('belair', '/'), {}, async ({ context, page, errors }) => {
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    assert.equal(await page.title(), 'Sign in to your account | belairdirect');
    await checkA11y(page);
    await signIn(page, 'Demo@Belair.example', PASSWORD);
    await page.waitForURL(server.url('belair', '/my-account'));
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    await page.getByText('Welcome, Alex Martin').waitFor();
    await page.getByText('demo@belair.example', { exact: true }).waitFor();
    const policies = page.getByRole('table', { name: 'Your policies' });
    assert.equal(await policies.getByRole('row').count(), 3, 'a header row and two policies');
    await policies.getByRole('cell', { name: 'Home' }).waitFor();
    await policies.getByRole('cell', { name: 'Auto' }).waitFor();
    assert.match((await policies.getByRole('row').nth(1).getByRole('cell').first().textContent()) ?? '', /^BEL-\d{4}$/);
    await checkA11y(page);
    assert.equal(await meStatus(page), 200);

    const session = (await context.cookies()).find((c) => c.name === 'guichet_session');
    assert.ok(session, 'the SSO set a session cookie');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(server.url('belair', '/'));
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    assert.equal(await meStatus(page), 401);

    // The old cookie, presented again, opens nothing: the session was revoked on the server.
    await context.addCookies([{ ...session, expires: -1 }]);
    assert.equal(await meStatus(page), 401);
    await page.goto(server.url('belair', '/my-account'));
    await page.waitForURL(server.url('belair', '/'));
    await page.waitForFunction(() => (/** @type {any} */ (window).dataLayer ?? []).length > 1);
    assert.deepEqual(
      (await pageViews(page)).map((e) => [e.path, e.pageCategory]),
      [['/my-account', 'account'], ['/', 'login']],
    );
    assert.deepEqual(realErrors(errors), []);
  }));

test('remember me keeps the email across a browser restart; unticked, it is forgotten', async () => {
  const { context, page } = await openPage(browser, server.url('scotia', '/'));
  /** @type {import('playwright-core').BrowserContext | undefined} */
  let restarted;
  try {
    await page.getByRole('checkbox', { name: 'Remember me' }).check();
    await signIn(page, 'demo@scotia.example', PASSWORD);
    await page.waitForURL(server.url('scotia', '/my-account'));
    const email = (await context.cookies()).find((c) => c.name === 'email');
    assert.equal(email?.value && decodeURIComponent(email.value), 'demo@scotia.example');
    assert.ok((email?.expires ?? 0) > Date.now() / 1000 + 170 * 24 * 3600, 'the email cookie lives 6 months');

    restarted = await browser.newContext({ storageState: await context.storageState() });
    const again = await restarted.newPage();
    await again.goto(server.url('scotia', '/'));
    await again.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    assert.equal(await again.getByLabel('Email address').inputValue(), 'demo@scotia.example');
    assert.equal(await again.getByRole('checkbox', { name: 'Remember me' }).isChecked(), true);

    await again.getByRole('checkbox', { name: 'Remember me' }).uncheck();
    assert.equal((await restarted.cookies()).find((c) => c.name === 'email'), undefined);
    await again.reload();
    await again.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    assert.equal(await again.getByLabel('Email address').inputValue(), '');
  } finally {
    await restarted?.close();
    await context.close();
  }
});

test('wrong passwords up to the limit, then the login-difficulties roadblock', () =>
  withContext(browser, {}, async (page, context) => {
    await lowestLimit(context);
    await page.goto(server.url('intact', '/'));
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    for (const attempt of [1, 2]) {
      await failSignIn(page, 'demo@intact.example', `Wrong-password-${attempt}`);
      assert.equal(pathOf(page), '/');
      assert.equal(await page.getByLabel('Password', { exact: true }).evaluate((el) => el === document.activeElement), true);
      await checkA11y(page);
    }
    await signIn(page, 'demo@intact.example', 'Wrong-password-3');
    await page.waitForURL(server.url('intact', '/roadblock/login-difficulties'));
    await page.getByRole('heading', { level: 1, name: 'Having trouble signing in?' }).waitFor();
    const config = await siteConfig(page);
    const province = config.brand.provinces.find((/** @type {any} */ p) => p.key === config.province);
    await page.getByRole('region', { name: 'Call us' }).getByRole('link', { name: province.phone }).waitFor();
    await checkA11y(page);
  }));

test('a locked account answers like a wrong password', async () => {
  const { page } = await pages.open(server.url('belair', '/'));
  await failSignIn(page, 'locked@belair.example', PASSWORD);
  assert.equal(pathOf(page), '/');
  await failSignIn(page, 'demo@belair.example', 'Not-the-password-1');
});

test('an account disabled by staff: a wrong password shows the login error, the right one the block roadblock', async () => {
  const { page } = await pages.open(server.url('belair', '/'));
  await failSignIn(page, 'disabled@belair.example', 'Not-the-password-1');
  const answered = page.waitForResponse((r) => /\/api\/v1\/accounts\/[^/]+\/authentication$/.test(r.url()));
  await signIn(page, 'disabled@belair.example', PASSWORD);
  assert.equal((await answered).status(), 403);
  await page.waitForURL(server.url('belair', '/roadblock/block'));
  await page.getByRole('heading', { level: 1, name: 'Your access is blocked' }).waitFor();
  await checkA11y(page);
});

test('a temporary password goes to /reset, holding it for the reset screen', async () => {
  const { page } = await pages.open(server.url('belair', '/'));
  await signIn(page, 'temp@belair.example', TEMPORARY);
  await page.waitForURL(server.url('belair', '/reset'));
  const flow = await page.evaluate(() => JSON.parse(sessionStorage.getItem('guichet.flow') ?? '{}'));
  assert.equal(flow.resetPassword.isTempPWD, true);
  assert.equal(flow.resetPassword.temp, TEMPORARY);
  assert.equal(flow.resetPassword.email, 'temp@belair.example');
});

test('three wrong temporary passwords show the temporary roadblock', async () => {
  const { page } = await pages.open(server.url('servus', '/'));
  for (const attempt of [1, 2]) {
    await failSignIn(page, 'temp@servus.example', `Wrong-temp-${attempt}`);
  }
  await signIn(page, 'temp@servus.example', 'Wrong-temp-3');
  await page.waitForURL(server.url('servus', '/roadblock/temporary'));
  await page.getByRole('heading', { level: 1, name: 'Your temporary password no longer works' }).waitFor();
  await checkA11y(page);
});

test('webview mode (waa- cookie) signs in with header and footer hidden', () =>
  withOpenPage(browser, server.url('bna', '/?lang=en'), { cookies: [{ name: 'waa-app', value: '1' }] }, async ({ page, errors }) => {
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    assert.equal(await page.getByRole('banner').count(), 0);
    assert.equal(await page.getByRole('contentinfo').count(), 0);
    await checkA11y(page);
    await signIn(page, 'demo@bna.example', PASSWORD);
    await page.waitForURL(server.url('bna', '/my-account'));
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    assert.equal(await page.getByRole('banner').count(), 0);
    assert.equal(await page.getByRole('contentinfo').count(), 0);
    await checkA11y(page);
    assert.deepEqual(realErrors(errors), []);
  }));

test('the login page in French', async () => {
  const { page, errors } = await pages.open(server.url('bna', '/?province=qc&lang=fr'));
  await page.getByRole('heading', { level: 1, name: 'Connectez-vous à votre compte' }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'Créer un compte' }).getAttribute('href'), '/registration/identification');
  await checkA11y(page);
  assert.deepEqual(errors, []);
});

describe('/webseal.do acts on each web SSO error code (spec §8.5)', () => {
  const toLogin = ['0x00000000'];
  const loginError = ['0x132120c8', '0x132120c9', '0x132120ca', 'HPDIA0300W', '0x1321212c'];
  const forgot = ['0x132120ea', '0x132120e9', '0x13212135', '0x13212132', '0x1321213c'];
  const technical = ['0x38cf04d7', '0x132120cc', '0x1321213d', '0x12345678'];
  const cases = [
    ...toLogin.map((code) => ({ code, path: '/', heading: 'Sign in to your account', error: false })),
    ...loginError.map((code) => ({ code, path: '/', heading: 'Sign in to your account', error: true })),
    ...forgot.map((code) => ({ code, path: '/roadblock/forgot-password', heading: 'Reset your password', error: false })),
    ...technical.map((code) => ({ code, path: '/roadblock/technical', heading: 'Something went wrong', error: false })),
  ];
  for (const { code, path, heading, error } of cases) {
    test(`${code} -> ${path}${error ? ' with the login error' : ''}`, async () => {
      const { page, errors } = await pages.open(server.url('belair', `/webseal.do?error=${code}`));
      await page.waitForURL(server.url('belair', path));
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      assert.equal(await page.getByRole('alert').filter({ hasText: LOGIN_ERROR }).count(), error ? 1 : 0);
      await checkA11y(page);
      assert.deepEqual(errors, []);
    });
  }

  for (const code of ['0x38cf05e7', '0x13212079']) {
    test(`${code} -> the other application (the brand's marketing site)`, () =>
      withContext(browser, {}, async (page, context) => {
        await context.route('https://www.belairdirect.com/**', (route) =>
          route.fulfill({ contentType: 'text/html', body: '<!doctype html><html lang="en"><title>belairdirect</title><h1>Marketing</h1></html>' }),
        );
        await page.goto(server.url('belair', `/webseal.do?error=${code}`));
        await page.waitForURL('https://www.belairdirect.com/**');
        assert.equal(page.url(), 'https://www.belairdirect.com/en.html');
      }));
  }
});

test('the SSO endpoint sends a failed form post back to /webseal.do with the login error', async () => {
  const { page, errors } = await pages.open(server.url('belair', '/'));
  // A form post without a ticket and with a wrong password, as an external page could send it.
  await page.evaluate(() => {
    const form = document.createElement('form');
    form.method = 'post';
    form.action = '/pkmslogin.form';
    for (const [name, value] of [['login-form-type', 'pwd'], ['username', 'demo@belair.example'], ['password', 'Wrong-1']]) {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = name ?? '';
      input.value = value ?? '';
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  });
  await page.waitForURL(server.url('belair', '/'));
  await page.getByRole('alert').filter({ hasText: LOGIN_ERROR }).waitFor();
  assert.deepEqual(realErrors(errors), []);
});
