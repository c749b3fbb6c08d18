// The consent page of a third-party application (issue 30). The
// application here is the test itself: it sends the browser to the brand's
// /authorize as any code-flow client does (PKCE S256), receives the code
// at a redirect URI it listens on, and trades it at the token endpoint.
// Relying-party libraries nobody here wrote are proven in
// internal/app/oidc_test.go (go-oidc) and e2e/oidc.test.mjs (oauth2-proxy);
// this file proves the pages: the consent page in French and English, its
// two answers, and My account's "Connected applications" taking it back.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import { after, test } from 'node:test';
import { PHONE_320, arrive, checkA11y, expectNoSidewaysScroll, startSuite, withContext } from './harness.mjs';

const PASSWORD = 'Guichet-Demo-2026!';
const { server, browser } = await startSuite();

// The application's redirect URI: it shows what it received.
const app = createServer((req, res) => {
  const q = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><title>Partner site</title><main><h1>Partner site</h1>
    <p id="code">${q.get('code') ?? ''}</p><p id="error">${q.get('error') ?? ''}</p><p id="iss">${q.get('iss') ?? ''}</p></main></html>`);
});
await new Promise((resolve) => app.listen(0, '127.0.0.1', () => resolve(undefined)));
after(() => app.close());
const redirectURI = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (app.address()).port}/cb`;
/**
 * Registers a third-party public client of belair and returns its id.
 * @param {string} name
 */
async function register(name) {
  const added = await server.cli('clients', 'add', '--brand', 'belair', '--name', name, '--type', 'public', '--third-party', '--redirect-uri', redirectURI);
  const id = /client_id:\s*(\S+)/.exec(added)?.[1] ?? '';
  assert.ok(id, `clients add printed ${added}`);
  return id;
}
// One client per test, so that neither depends on what the other allowed.
const quoteHub = await register('Quote Hub');
const rateFinder = await register('Rate Finder');

/**
 * An authorization request's URL and its PKCE verifier.
 * @param {string} clientID
 * @param {Record<string, string>} [extra]
 */
function authorizeURL(clientID, extra = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    response_type: 'code', client_id: clientID, redirect_uri: redirectURI, scope: 'openid email policies', state: 'st-quote',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', ...extra,
  });
  return { url: server.url('belair', `/oidc/authorize?${params}`), verifier };
}

/**
 * The token endpoint's answer to a code (Node reaches belair.localhost at 127.0.0.1 with its Host).
 * @param {string} clientID
 * @param {string} code
 * @param {string} verifier
 * @returns {Promise<{ status: number | undefined, json: Record<string, unknown> }>}
 */
function trade(clientID, code, verifier) {
  const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectURI, client_id: clientID, code_verifier: verifier }).toString();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/oidc/token', method: 'POST',
      headers: { Host: `belair.localhost:${server.port}`, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } },
    (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(text || '{}') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a third-party application asks in French; the customer allows it, and the application gets its code', () =>
  withContext(browser, {}, async (page) => {
    const { url, verifier } = authorizeURL(quoteHub, { ui_locales: 'fr-CA' });
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: 'Connectez-vous à votre compte' }).waitFor();
    await page.getByLabel('Adresse courriel').fill('demo@belair.example');
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await arrive(page, 'Autoriser Quote Hub à utiliser votre compte\u00a0?', { focus: false });
    assert.match(page.url(), /\/oidc\/consent\?id=/);
    const items = await page.locator('.consent__scopes li').allTextContents();
    assert.deepEqual(items, ['La preuve de votre connexion à votre compte belairdirect', 'Votre adresse courriel',
      'Vos numéros de police et leur type (habitation ou auto)']);
    await page.getByRole('button', { name: 'Autoriser', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Partner site' }).waitFor();
    const code = await page.locator('#code').textContent();
    assert.ok(code, 'no code');
    assert.equal(await page.locator('#iss').textContent(), server.url('belair', ''));
    const answer = await trade(quoteHub, code ?? '', verifier);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.ok(answer.json.id_token, 'no ID token');

    // Kept: the next request goes straight through.
    await page.goto(authorizeURL(quoteHub).url);
    await page.getByRole('heading', { level: 1, name: 'Partner site' }).waitFor();
    assert.ok(await page.locator('#code').textContent());

    // My account lists it; taking it back ends it, and the next request asks again.
    await page.goto(server.url('belair', '/my-account?lang=en'));
    const apps = page.getByRole('region', { name: 'Connected applications' });
    await apps.getByText('Quote Hub', { exact: true }).waitFor();
    await checkA11y(page);
    await apps.getByRole('button', { name: 'Remove access for Quote Hub' }).click();
    await apps.getByText('Quote Hub no longer has access to your account.').waitFor();
    await page.goto(authorizeURL(quoteHub).url);
    await page.getByRole('heading', { level: 1, name: 'Allow Quote Hub to use your account?' }).waitFor();
  }));

test('at 320 px, the customer does not allow it: the application hears access_denied', () =>
  withContext(browser, PHONE_320, async (page) => {
    await page.goto(authorizeURL(rateFinder, { ui_locales: 'en' }).url);
    await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    await page.getByLabel('Email address').fill('demo@belair.example');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await arrive(page, 'Allow Rate Finder to use your account?', { focus: false });
    await expectNoSidewaysScroll(page, 'consent at 320 px');
    await page.getByRole('button', { name: "Don't allow" }).click();
    await page.getByRole('heading', { level: 1, name: 'Partner site' }).waitFor();
    assert.equal(await page.locator('#error').textContent(), 'access_denied');
    assert.equal(await page.locator('#code').textContent(), '');
  }));
