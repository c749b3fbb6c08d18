// Browser test of maintenance mode (spec §8.1 503, §7 maintenancePageBypass):
// an operator turns it on for one brand with `guichet maintenance on` while
// the server runs; that brand's visitors land on the maintenance roadblock,
// staff with the bypass sign in through it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkA11y, pathOf, realErrors, siteConfig, startSuite, until } from './harness.mjs';

const BYPASS = 'staff-e2e-bypass';

const { server, browser } = await startSuite({ env: { GUICHET_MAINTENANCE_BYPASS: BYPASS } });

/**
 * Waits until the server answers the brand's start call with `status`: an
 * instance sees a change within a second (internal/maintenance.Refresh).
 * @param {string} brand
 * @param {number} status
 */
async function untilWelcome(brand, status) {
  const page = await browser.newPage();
  try {
    await page.goto(server.url(brand, '/not-found'));
    const apiKey = (await siteConfig(page)).brand.apiKey;
    let got = 0;
    await until(
      async () => {
        got = await page.evaluate(async (key) => (await fetch('/api/v1/welcome', { headers: { 'X-API-KEY': key } })).status, apiKey);
        return got === status;
      },
      `the start call to answer ${status}`,
      () => `it answers ${got}`,
    );
  } finally {
    await page.close();
  }
}

test('maintenance on for a brand: its login lands on the maintenance roadblock; the bypass lets staff sign in', async () => {
  assert.equal(await server.cli('maintenance', 'on', '--brand', 'intact'), 'maintenance on for intact\n');
  try {
    await untilWelcome('intact', 503);

    // A visitor: the login page turns into the maintenance roadblock with the province's phone number.
    const context = await browser.newContext();
    const page = await context.newPage();
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await page.goto(server.url('intact', '/'));
    await page.getByRole('heading', { level: 1, name: 'Our site is under maintenance' }).waitFor();
    assert.equal(pathOf(page), '/roadblock/maintenance');
    const config = await siteConfig(page);
    const phone = config.brand.provinces.find((/** @type {{ key: string }} */ p) => p.key === config.province).phone;
    await page.getByRole('region', { name: 'Call us' }).getByRole('link', { name: phone }).waitFor();
    await checkA11y(page);
    assert.deepEqual(realErrors(errors), []);
    await context.close();

    // A wrong bypass changes nothing.
    const wrong = await browser.newPage();
    await wrong.goto(server.url('intact', '/?maintenancePageBypass=guess'));
    await wrong.getByRole('heading', { level: 1, name: 'Our site is under maintenance' }).waitFor();
    await wrong.close();

    // Staff with the bypass: the login page stays, and the tab keeps the
    // bypass for the calls of the pages that follow (/my-account's).
    const staff = await browser.newPage();
    const welcome = staff.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/welcome');
    await staff.goto(server.url('intact', `/?maintenancePageBypass=${BYPASS}`));
    assert.equal((await welcome).status(), 200);
    await staff.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
    assert.equal(pathOf(staff), `/?maintenancePageBypass=${BYPASS}`);
    await staff.getByLabel('Email address').fill('demo@intact.example');
    await staff.getByLabel('Password', { exact: true }).fill('Guichet-Demo-2026!');
    await staff.getByRole('button', { name: 'Sign in', exact: true }).click();
    await staff.waitForURL(server.url('intact', '/my-account'));
    await staff.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    await staff.getByText('demo@intact.example', { exact: true }).waitFor();
    await staff.close();

    // Another brand is not under maintenance.
    await untilWelcome('belair', 200);
  } finally {
    await server.cli('maintenance', 'off');
  }
  await untilWelcome('intact', 200);
});
