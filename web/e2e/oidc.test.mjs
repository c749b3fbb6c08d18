// The OpenID provider (issue 30) through a relying party nobody here wrote:
// oauth2-proxy (bin/oauth2-proxy, built by the Makefile from its Go module)
// in front of a small upstream. The visitor opens the upstream, is sent to
// Guichet, signs in on the portal's own login page and reaches the upstream
// as themselves. oauth2-proxy reaches the brand's host (belair.localhost,
// which only Chromium resolves) through HTTP_PROXY: Guichet's server answers
// an absolute-form request as it answers any other.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { advanceClock, arrive, checkA11y, codeOf, freePort, keepSecret, press, seenMail, startSuite, typeInto, until, waitForMail, withContext } from './harness.mjs';
import { DOB, LICENCE, NEW_PASSWORD, POSTAL, registrationMessages } from './demo.mjs';
import { codeToNewPassword, createSmartAccount } from './steps.mjs';

const PASSWORD = 'Guichet-Demo-2026!';
const proxyBinary = join(dirname(fileURLToPath(import.meta.url)), '../../bin/oauth2-proxy');

const { server, browser } = await startSuite();

// The upstream answers with the user oauth2-proxy vouches for.
const upstream = createServer((request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  response.end(`<!doctype html><html lang="en"><title>Claims centre</title><main><h1>Claims centre</h1><p id="user">${String(request.headers['x-forwarded-email'] ?? 'nobody')}</p></main></html>`);
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', () => resolve(undefined)));
after(() => upstream.close());
const upstreamAddress = /** @type {import('node:net').AddressInfo} */ (upstream.address());

const proxyPort = await freePort();
const proxyURL = `http://127.0.0.1:${proxyPort}`;
const registered = await server.cli('clients', 'add', '--brand', 'belair', '--name', 'Claims centre', '--type', 'confidential',
  '--redirect-uri', `${proxyURL}/oauth2/callback`);
const clientID = /client_id:\s*(\S+)/.exec(registered)?.[1];
const clientSecret = keepSecret(/client_secret:\s*(\S+)/.exec(registered)?.[1] ?? '');
assert.ok(clientID && clientSecret, `clients add printed ${registered}`);

const proxy = spawn(proxyBinary, [
  '--provider=oidc', `--oidc-issuer-url=${server.url('belair', '').replace(/\/$/, '')}`,
  `--client-id=${clientID}`, `--client-secret=${clientSecret}`, `--redirect-url=${proxyURL}/oauth2/callback`,
  `--http-address=127.0.0.1:${proxyPort}`, `--upstream=http://127.0.0.1:${upstreamAddress.port}/`,
  '--email-domain=*', `--cookie-secret=${randomBytes(16).toString('hex')}`, '--cookie-secure=false',
  '--skip-provider-button=true', '--code-challenge-method=S256', '--scope=openid email profile offline_access',
  '--cookie-refresh=2s', '--pass-user-headers=true',
], { env: { ...process.env, HTTP_PROXY: `http://127.0.0.1:${server.port}`, http_proxy: `http://127.0.0.1:${server.port}` }, stdio: ['ignore', 'pipe', 'pipe'] });
let proxyLog = '';
proxy.stdout.on('data', (chunk) => (proxyLog = (proxyLog + chunk).slice(-20_000)));
proxy.stderr.on('data', (chunk) => (proxyLog = (proxyLog + chunk).slice(-20_000)));
after(() => proxy.kill('SIGTERM'));
await until(
  async () => {
    if (proxy.exitCode !== null) throw new Error(`oauth2-proxy exited:\n${proxyLog}`);
    try {
      return (await fetch(`${proxyURL}/ping`)).ok;
    } catch {
      return false; // not listening yet
    }
  },
  'oauth2-proxy to be ready',
  () => proxyLog,
);

test('an application behind oauth2-proxy signs its customer in on the portal, and loses them when they sign out there', () =>
  withContext(browser, {}, async (page) => {
    await page.goto(`${proxyURL}/`);
    // oauth2-proxy sent the browser to the brand's /authorize, which sent it
    // to the portal's own login page.
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    assert.match(page.url(), /^http:\/\/belair\.localhost:\d+\/\?lang=en$/);
    await checkA11y(page);
    await page.getByLabel('Email address').fill('demo@belair.example');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Claims centre' }).waitFor();
    assert.equal(page.url(), `${proxyURL}/`);
    assert.equal(await page.locator('#user').textContent(), 'demo@belair.example');

    // A sign-out at the portal ends the grant: oauth2-proxy, which has no
    // back-channel logout (oauth2-proxy issue 1224), loses the customer at
    // its next refresh (--cookie-refresh=2s; a lower bound, not a speed
    // limit), when the refresh token is refused.
    const portal = await page.context().newPage();
    await portal.goto(server.url('belair', '/my-account'));
    await portal.getByRole('button', { name: 'Sign out' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    await portal.close();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await page.goto(`${proxyURL}/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    assert.match(page.url(), /^http:\/\/belair\.localhost:\d+\/\?lang=en$/);
  }));

/** What the visitor reads, by language: the catalogue with the registration sections. */
const messages = registrationMessages('smartRegistration');

/**
 * Sends a fresh visitor from the application to the portal as a client
 * asking for a language does: oauth2-proxy's own /oauth2/start (its state
 * and PKCE cookies in the visitor's context) gives the authorization
 * request, to which the test adds ui_locales (oauth2-proxy has no option
 * for it), and the browser follows it.
 * @param {import('playwright-core').Page} page
 * @param {string} uiLocales
 */
async function startSignIn(page, uiLocales) {
  const start = await page.context().request.get(`${proxyURL}/oauth2/start?rd=%2F`, { maxRedirects: 0 });
  assert.equal(start.status(), 302);
  const authorize = new URL(start.headers()['location'] ?? '');
  assert.equal(authorize.pathname, '/oidc/authorize');
  authorize.searchParams.set('ui_locales', uiLocales);
  await page.goto(authorize.href);
}

/**
 * Waits for the upstream's page and checks who oauth2-proxy vouches for.
 * @param {import('playwright-core').Page} page
 * @param {string} email
 */
async function reachedUpstreamAs(page, email) {
  await page.getByRole('heading', { level: 1, name: 'Claims centre' }).waitFor();
  assert.equal(page.url(), `${proxyURL}/`);
  assert.equal(await page.locator('#user').textContent(), email);
}

test('a visitor without an account creates one on the way to the application (smart registration) and reaches it as the new account', () =>
  withContext(browser, {}, async (page) => {
    const m = messages.en;
    const email = 'reg-email@belair.example';
    await page.goto(`${proxyURL}/`);
    await arrive(page, m['login.title'], { focus: false });
    await press(page, page.getByRole('link', { name: m['login.createAccount'] }));
    await arrive(page, m['smartRegistration.accountType.title']);
    await press(page, page.getByRole('button', { name: m['smartRegistration.next'], exact: true }));
    await arrive(page, m['smartRegistration.identification.title']);
    // Emma Courriel (docs/registration-demo.md): an email on file only, so its code goes at once.
    const fields = [
      ['smartRegistration.field.policyNumber', 'REG0001'],
      ['smartRegistration.field.firstName', 'Emma'],
      ['smartRegistration.field.lastName', 'Courriel'],
      ['form.day', DOB.day],
    ];
    for (const [label, value] of fields) await typeInto(page, page.getByLabel(m[label] ?? label), value ?? '');
    await page.keyboard.press('Tab');
    await page.keyboard.type(DOB.month.en);
    await typeInto(page, page.getByLabel(m['form.year']), DOB.year);
    await typeInto(page, page.getByLabel(m['smartRegistration.field.postalCode']), POSTAL);
    await typeInto(page, page.getByLabel(m['smartRegistration.field.driverLicence']), LICENCE);
    const seen = await seenMail(server, email);
    await press(page, page.getByRole('button', { name: m['smartRegistration.next'], exact: true }));
    await arrive(page, m['smartRegistration.code.title']);
    const mail = await waitForMail(server, email, 'registration-code', seen);
    await typeInto(page, page.getByLabel(m['form.code'], { exact: true }), codeOf(mail));
    await press(page, page.getByRole('button', { name: m['smartRegistration.next'], exact: true }));
    await arrive(page, m['smartRegistration.email.title']);
    await press(page, page.getByRole('button', { name: m['smartRegistration.email.useThis'], exact: true }));
    await arrive(page, m['smartRegistration.create.title']);
    await createSmartAccount(page, m, NEW_PASSWORD);
    // Its button posts the SSO form, whose success completes the pending request.
    await press(page, page.getByRole('button', { name: m['smartRegistration.confirmation.goToProfile'], exact: true }));
    await reachedUpstreamAs(page, email);
  }));

test('a visitor who forgot their password resets it on the way to the application, in the French the client asked for, and reaches it', () =>
  withContext(browser, {}, async (page) => {
    const m = messages.fr;
    const email = 'francais@belair.example';
    await startSignIn(page, 'fr-CA');
    await arrive(page, m['login.title'], { focus: false });
    assert.match(page.url(), /\/\?lang=fr$/);
    await press(page, page.getByRole('link', { name: m['login.forgot'] }));
    await arrive(page, m['recovery.forgot.title']);
    await typeInto(page, page.getByLabel(m['form.email']), email);
    const seen = await seenMail(server, email);
    await codeToNewPassword(server, page, m, email, seen);
    await typeInto(page, page.getByLabel(m['form.postalCode']), POSTAL);
    await typeInto(page, page.getByLabel(m['recovery.reset.newPassword'], { exact: true }), NEW_PASSWORD);
    await typeInto(page, page.getByLabel(m['recovery.reset.passwordConfirmation']), NEW_PASSWORD);
    await press(page, page.getByRole('button', { name: m['recovery.reset.submit'] }));
    await reachedUpstreamAs(page, email);
  }));

test('a visitor who takes longer than the pending request lives ends signed in at the portal, and the application then signs them in at once', () =>
  withContext(browser, {}, async (page) => {
    const m = messages.en;
    await page.goto(`${proxyURL}/`);
    await arrive(page, m['login.title'], { focus: false });
    // The request waits 10 minutes (oidc.AuthRequestTTL): the server's clock moves past them.
    await advanceClock(server, '11m');
    await typeInto(page, page.getByLabel(m['form.email']), 'demo@belair.example');
    await typeInto(page, page.getByLabel(m['form.password'], { exact: true }), PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(server.url('belair', '/my-account'));
    await arrive(page, m['account.title'], { focus: false });
    await page.goto(`${proxyURL}/`);
    await reachedUpstreamAs(page, 'demo@belair.example');
  }));
