// Browser test of the staff console (issue 16) on http://console.localhost:PORT
// against the built binary: set-up from the CLI link (QR code, secret as
// text, TOTP computed here from the secret shown, recovery codes), sign-in
// with a TOTP code, the language toggle, and axe on every page. The console's
// code stays out of the portal's chunks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { checkA11y, keepSecret, openPage, pathOf, realErrors, repoRoot, startSuite } from './harness.mjs';
import { signInStaff } from './staff.mjs';
import { codes, totp } from './totp.mjs';

const { server, browser } = await startSuite();

const consoleUrl = (path = '/') => `http://console.localhost:${server.port}${path}`;
/** @type {Record<string, string>} */
const en = JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/console.en.json'), 'utf8'));
/** @type {Record<string, string>} */
const fr = JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/console.fr.json'), 'utf8'));

test('RFC 6238 test vector (SHA-1, T = 59 s)', () => {
  // RFC 6238 appendix B: secret "12345678901234567890", 8 digits 94287082; 6 digits are its last six.
  const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
  assert.equal(totp(secret, 1), '287082');
});

/**
 * A fresh context on a console page; records errors.
 * @param {string} path
 */
async function open(path) {
  const context = await browser.newContext();
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(consoleUrl(path));
  await page.getByRole('heading', { level: 1 }).waitFor();
  return { context, page, errors };
}

/**
 * The h1 of a console page has the focus and axe finds nothing.
 * @param {import('playwright-core').Page} page
 * @param {string} title
 */
async function arrive(page, title) {
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  await page.waitForFunction((t) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === t, title);
  await checkA11y(page);
}

describe('console', () => {
  test('set-up from the CLI link: QR code and secret, password and first code, recovery codes once; then sign-in with a code', async () => {
    const link = (await server.cli('staff', 'add', 'nia@console.example', '--name', 'Nia New', '--role', 'agent', '--brands', 'belair', '--dev')).trim();
    assert.match(link, new RegExp(`^http://console\\.localhost:${server.port}/setup#[A-Za-z0-9_-]+$`));
    const { context, page, errors } = await open(link.replace(/^http:\/\/[^/]+/, ''));
    await arrive(page, en['console.setup.title']);
    await page.getByRole('img', { name: en['console.setup.qrLabel'] }).waitFor();
    const secret = (await page.getByTestId('setup-secret').textContent())?.replace(/\s/g, '') ?? '';
    assert.match(secret, /^[A-Z2-7]{16,}$/);
    const next = codes(secret);

    // A wrong first code is refused on its field.
    await page.getByLabel('Password', { exact: true }).fill('Harbour-Lantern-58!');
    await page.getByLabel(en['console.setup.confirmation']).fill('Harbour-Lantern-58!');
    const wrong = totp(secret, Math.floor(Date.now() / 30_000) + 20);
    await page.getByLabel(en['console.setup.code']).fill(wrong);
    await page.getByRole('button', { name: en['console.setup.submit'] }).click();
    await page.getByText(en['console.code.invalid']).first().waitFor();

    await page.getByLabel(en['console.setup.code']).fill(await next());
    await page.getByRole('button', { name: en['console.setup.submit'] }).click();
    await arrive(page, en['console.setup.codesTitle']);
    const recovery = await page.getByRole('list', { name: en['console.setup.codesTitle'] }).getByRole('listitem').allTextContents();
    assert.equal(recovery.length, 10);
    await page.getByRole('button', { name: en['console.setup.continue'] }).click();
    await arrive(page, en['console.search.title']);
    assert.equal(pathOf(page), '/');

    // The link is spent.
    const again = await context.newPage();
    await again.goto(link);
    await again.getByText(en['console.setup.invalidLink']).waitFor();

    // Sign out, then in again with the password and the next code.
    await page.getByRole('button', { name: en['console.nav.signOut'] }).click();
    await arrive(page, en['console.signIn.title']);
    await page.getByLabel('Email address').fill('nia@console.example');
    await page.getByLabel('Password', { exact: true }).fill('Harbour-Lantern-58!');
    await page.getByRole('button', { name: en['console.signIn.submit'] }).click();
    await arrive(page, en['console.code.title']);
    // A recovery code works too, once.
    await page.getByRole('button', { name: en['console.code.useRecovery'] }).click();
    await page.getByLabel(en['console.code.recovery']).fill(recovery[0]);
    await page.getByRole('button', { name: en['console.code.submit'] }).click();
    await arrive(page, en['console.search.title']);
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('sign-in: a wrong password and a wrong code are said; a signed-out visitor lands on /sign-in', async () => {
    const { context, page } = await open('/customers/1');
    assert.equal(pathOf(page), '/sign-in');
    await arrive(page, en['console.signIn.title']);
    await page.getByLabel('Email address').fill('agent@console.example');
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: en['console.signIn.submit'] }).click();
    await page.getByText(en['console.signIn.invalid']).waitFor();
    await checkA11y(page);
    await page.getByLabel('Password', { exact: true }).fill('Guichet-Staff-2026!');
    await page.getByRole('button', { name: en['console.signIn.submit'] }).click();
    await arrive(page, en['console.code.title']);
    const wrong = totp('GUICHETAGENTDEVTOTPSECRETAAAAAAA', Math.floor(Date.now() / 30_000) + 20);
    await page.getByLabel(en['console.code.code'], { exact: true }).fill(wrong);
    await page.getByRole('button', { name: en['console.code.submit'] }).click();
    await page.getByText(en['console.code.invalid']).waitFor();
    await checkA11y(page);
    await context.close();
  });

  test('French: the toggle translates the console and keeps the choice', async () => {
    const { context, page } = await open('/sign-in');
    await arrive(page, en['console.signIn.title']);
    await page.getByRole('button', { name: 'Français' }).click();
    await page.getByRole('heading', { level: 1, name: fr['console.signIn.title'] }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'fr');
    await checkA11y(page);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: fr['console.signIn.title'] }).waitFor();
    await context.close();
  });

  /**
   * Searches a customer by email and opens the account page.
   * @param {import('playwright-core').Page} page
   * @param {string} email
   */
  async function openCustomer(page, email) {
    await page.getByLabel(en['console.search.query']).fill(email);
    await page.getByRole('button', { name: en['console.search.submit'] }).click();
    await page.getByRole('status').filter({ hasText: en['console.search.count'].replace('{count}', '1') }).waitFor();
    await checkA11y(page);
    const link = page.getByRole('table').getByRole('link').first();
    // The account page's heading is the customer's name, the link's text.
    const name = (await link.textContent()) ?? '';
    await link.click();
    await arrive(page, name);
    await page.getByText(email).first().waitFor();
  }

  /**
   * Confirms one action of the customer page and waits for its outcome.
   * @param {import('playwright-core').Page} page
   * @param {string} action the action's key (console.action.*)
   * @param {string} done the outcome's key (console.done.*)
   */
  async function act(page, action, done) {
    await page.getByRole('button', { name: en[`console.action.${action}`] }).click();
    const dialog = page.getByRole('dialog', { name: en[`console.action.${action}`] });
    await dialog.waitFor();
    await checkA11y(page);
    await dialog.getByRole('button', { name: en['console.confirm.yes'] }).click();
    await page.getByRole('status').filter({ hasText: en[`console.done.${done}`] }).waitFor();
  }

  /**
   * Signs in on a brand's portal.
   * @param {string} brand
   * @param {string} email
   * @param {string} password
   */
  async function portalSignIn(brand, email, password) {
    const opened = await openPage(browser, server.url(brand, '/'));
    await opened.page.getByLabel('Email address').fill(email);
    await opened.page.getByLabel('Password', { exact: true }).fill(password);
    await opened.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    return opened;
  }

  test('an agent unlocks a locked customer, who then signs in; a temporary password leads to /reset; a disabled account meets the block roadblock', async () => {
    const { context, page, errors } = await open('/sign-in');
    await signInStaff(page, 'agent@console.example', codes('GUICHETAGENTDEVTOTPSECRETAAAAAAA'));

    await openCustomer(page, 'locked@belair.example');
    await act(page, 'unlock', 'unlock');
    await checkA11y(page);
    const unlocked = await portalSignIn('belair', 'locked@belair.example', 'Guichet-Demo-2026!');
    await unlocked.page.waitForURL(server.url('belair', '/my-account'));
    await unlocked.context.close();

    await page.getByRole('link', { name: en['console.nav.search'] }).click();
    await arrive(page, en['console.search.title']);
    await openCustomer(page, 'francais@belair.example');
    await page.getByRole('button', { name: en['console.action.temporaryPassword'] }).click();
    await page.getByRole('dialog').getByRole('button', { name: en['console.confirm.yes'] }).click();
    const temporary = keepSecret((await page.getByTestId('temporary-password').textContent()) ?? '');
    assert.ok(temporary.length >= 8, temporary);
    await checkA11y(page);
    const reset = await portalSignIn('belair', 'francais@belair.example', temporary);
    await reset.page.waitForURL(server.url('belair', '/reset'));
    await reset.context.close();

    await page.getByRole('link', { name: en['console.nav.search'] }).click();
    await openCustomer(page, 'demo@intact.example');
    await act(page, 'disable', 'disable');
    const blocked = await portalSignIn('intact', 'demo@intact.example', 'Guichet-Demo-2026!');
    await blocked.page.waitForURL(server.url('intact', '/roadblock/block'));
    await blocked.context.close();
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('a supervisor turns maintenance on and off; an agent is refused another brand’s customer', async () => {
    const { context, page } = await open('/sign-in');
    await signInStaff(page, 'supervisor@console.example', codes('GUICHETSUPERVISORDEVTOTPSECRETAA'));
    // The supervisor serves every brand: a bna customer's page, whose address the agent tries below.
    await page.getByLabel(en['console.search.query']).fill('demo@bna.example');
    await page.getByRole('button', { name: en['console.search.submit'] }).click();
    const href = (await page.getByRole('table').getByRole('link').first().getAttribute('href')) ?? '';
    assert.match(href, /^\/customers\/.+/);

    await page.getByRole('link', { name: en['console.nav.maintenance'] }).click();
    await arrive(page, en['console.maintenance.title']);
    await page.getByLabel(en['console.search.brand']).selectOption('servus');
    await page.getByRole('button', { name: en['console.maintenance.on'] }).click();
    await page.getByRole('dialog').waitFor();
    await checkA11y(page);
    await page.getByRole('dialog').getByRole('button', { name: en['console.confirm.yes'] }).click();
    await page.getByRole('status').filter({ hasText: en['console.maintenance.doneOn'].replace('{brand}', 'servus') }).waitFor();
    const visitor = await browser.newContext();
    const portal = await visitor.newPage();
    await portal.goto(server.url('servus', '/'));
    await portal.getByRole('heading', { level: 1, name: 'Our site is under maintenance' }).waitFor();
    await page.getByRole('button', { name: en['console.maintenance.off'] }).click();
    await page.getByRole('dialog').getByRole('button', { name: en['console.confirm.yes'] }).click();
    await page.getByRole('status').filter({ hasText: en['console.maintenance.doneOff'].replace('{brand}', 'servus') }).waitFor();
    await visitor.close();

    // The policy import: a file with problems is only checked, its problems listed, nothing offered to write.
    await page.getByRole('link', { name: en['console.nav.import'] }).click();
    await arrive(page, en['console.import.title']);
    await page.getByLabel(en['console.import.file']).setInputFiles({
      name: 'policies.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('brand,policy_number,colour\n'),
    });
    const imported = page.waitForResponse((r) => r.url().includes('/api/console/v1/policies/import?dryRun=true'));
    await page.getByRole('button', { name: en['console.import.check'] }).click();
    assert.equal((await imported).status(), 400);
    await page.getByRole('table').getByRole('row').nth(1).waitFor();
    assert.equal(await page.getByRole('button', { name: en['console.import.write'] }).count(), 0);
    await checkA11y(page);

    await page.getByRole('link', { name: en['console.nav.audit'] }).click();
    await arrive(page, en['console.audit.title']);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: en['console.audit.download'] }).click();
    const csv = readFileSync((await (await download).path()) ?? '', 'utf8');
    assert.match(csv, /^at,brand,account_id,ip,event,outcome,detail,actor/);
    await context.close();

    const agent = await open('/sign-in');
    await signInStaff(agent.page, 'agent@console.example', codes('GUICHETAGENTDEVTOTPSECRETAAAAAAA'));
    assert.equal(await agent.page.getByRole('link', { name: en['console.nav.maintenance'] }).count(), 0);
    await agent.page.goto(consoleUrl(href));
    await agent.page.getByText(en['console.error.forbiddenBrand']).waitFor();
    await checkA11y(agent.page);
    await agent.context.close();
  });

  test('an admin adds a staff member (set-up link shown once) and disables them', async () => {
    const { context, page } = await open('/sign-in');
    await signInStaff(page, 'admin@console.example', codes('GUICHETADMINDEVTOTPSECRETAAAAAAA'));
    await page.getByRole('link', { name: en['console.nav.staff'] }).click();
    await arrive(page, en['console.staff.title']);
    await page.getByRole('row').filter({ hasText: 'agent@console.example' }).waitFor();
    await page.getByLabel(en['console.customer.email']).fill('zed@console.example');
    await page.getByLabel(en['console.customer.name']).fill('Zed Zero');
    await page.getByLabel('belair').check();
    await page.getByRole('button', { name: en['console.staff.add'] }).click();
    const dialog = page.getByRole('dialog', { name: en['console.staff.add'] });
    await dialog.waitFor();
    await checkA11y(page);
    await dialog.getByRole('button', { name: en['console.confirm.yes'] }).click();
    const link = (await page.getByTestId('setup-link').textContent()) ?? '';
    assert.match(link, new RegExp(`^http://console\\.localhost:${server.port}/setup#[A-Za-z0-9_-]+$`));
    keepSecret(link.split('#')[1] ?? '');
    await page.getByRole('row').filter({ hasText: 'zed@console.example' }).waitFor();
    await checkA11y(page);
    await page.getByRole('button', { name: en['console.staff.disable'].replace('{email}', 'zed@console.example') }).click();
    await page.getByRole('dialog').getByRole('button', { name: en['console.confirm.yes'] }).click();
    await page.getByRole('row').filter({ hasText: 'zed@console.example' }).getByText(en['console.state.disabled']).waitFor();
    assert.match(await server.cli('staff', 'list'), /zed@console\.example/);
    await context.close();
  });

  test('the portal’s chunks hold none of the console’s code', async () => {
    const dist = join(repoRoot, 'web/dist');
    const consoleHtml = readFileSync(join(dist, 'console.html'), 'utf8');
    const consoleEntry = /src="\/(assets\/console-[^"]+\.js)"/.exec(consoleHtml)?.[1];
    assert.ok(consoleEntry, 'console.html names its entry');
    const portal = await fetch(`http://127.0.0.1:${server.port}/`, { headers: { Host: `belair.localhost:${server.port}` } });
    const portalHtml = await portal.text();
    assert.ok(!portalHtml.includes('console-'), 'the portal page names no console file');
    const chunks = JSON.parse(readFileSync(join(dist, 'page-chunks.json'), 'utf8'));
    const portalFiles = new Set([
      ...[...portalHtml.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]),
      ...Object.values(/** @type {Record<string, { js: string[] }>} */ (chunks.pages)).flatMap((p) => p.js),
      ...Object.values(/** @type {Record<string, string[]>} */ (chunks.catalogs)).flat(),
    ]);
    assert.ok(!portalFiles.has(consoleEntry));
    for (const file of portalFiles) {
      const text = readFileSync(join(dist, file), 'utf8');
      assert.ok(!text.includes('console.signIn.title'), `${file} holds console texts`);
      assert.ok(!text.includes('/api/console/v1'), `${file} holds console calls`);
    }
    // And the console page is not the portal's: no portal entry in it.
    assert.ok(!/src="\/assets\/index-/.test(consoleHtml));
  });
});
