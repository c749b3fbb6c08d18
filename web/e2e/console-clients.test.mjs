// Browser test of the console's OpenID clients page (issue 30) on
// http://console.localhost:PORT against the built binary, on a 320 px
// phone: the demo admin registers a confidential client, sees its secret
// once (copied, then hidden; left nowhere: not in the page after a reload,
// not in the browser's storage, not in the server's output), and disables
// the client; axe on every step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrive, checkA11y, expectNoSidewaysScroll, keepSecret, PHONE_320, realErrors, startSuite, withContext } from './harness.mjs';
import { consoleEn as en, signInStaff } from './staff.mjs';
import { codes } from './totp.mjs';

const { server, browser } = await startSuite();
const origin = `http://console.localhost:${server.port}`;

test('an admin registers a confidential client, sees its secret once, and disables the client (320 px)', async () => {
  await withContext(browser, PHONE_320, async (page, context) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${origin}/sign-in`);
    await signInStaff(page, 'admin@console.example', codes('GUICHETADMINDEVTOTPSECRETAAAAAAA'), { focus: false });
    await page.getByRole('link', { name: en['console.nav.clients'] }).click();
    await arrive(page, en['console.clients.title']);
    await page.getByText(en['console.clients.none']).waitFor();

    await page.getByLabel(en['console.search.brand']).selectOption('intact');
    await page.getByLabel(en['console.clients.name']).fill('Claims centre');
    await page.getByLabel(en['console.clients.redirectUris']).fill('https://claims.example/cb\nhttp://localhost:4180/oauth2/callback');
    await page.getByLabel(en['console.clients.backchannel']).fill('https://claims.example/logout');
    await page.getByRole('button', { name: en['console.clients.add'] }).click();
    const dialog = page.getByRole('dialog', { name: en['console.clients.add'] });
    await dialog.waitFor();
    await checkA11y(page);
    await dialog.getByRole('button', { name: en['console.confirm.yes'] }).click();

    // The secret, once: with its warning and a copy button.
    const shown = page.getByTestId('client-secret');
    const secret = keepSecret((await shown.textContent()) ?? '');
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    const clientID = (await page.getByTestId('client-id').textContent()) ?? '';
    await page.getByText(en['console.clients.secretWarning']).waitFor();
    await page.waitForFunction((t) => document.activeElement?.textContent === t, en['console.clients.added']);
    await checkA11y(page);
    await expectNoSidewaysScroll(page, 'the secret shown');
    await page.getByRole('button', { name: en['console.clients.copy'] }).click();
    await page.getByText(en['console.clients.copied']).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await page.evaluate(() => navigator.clipboard.writeText(''));
    const listed = await server.cli('clients', 'list', '--brand', 'intact');
    assert.match(listed, new RegExp(`^${clientID}\\s+intact\\s+Claims centre\\s+confidential\\s+client_secret_basic\\s+first\\s+ES256\\s+.*\\sactive$`, 'm'));

    await page.getByRole('button', { name: en['console.clients.hideSecret'] }).click();
    await shown.waitFor({ state: 'detached' });
    const held = () =>
      page.evaluate(
        (s) => [document.documentElement.outerHTML, JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })].some((text) => text.includes(s)),
        secret,
      );
    assert.equal(await held(), false, 'the secret stays after it was hidden');
    await page.reload();
    await arrive(page, en['console.clients.title'], { focus: false });
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3, name: /Claims centre/ }) });
    await item.getByText('http://localhost:4180/oauth2/callback').waitFor();
    assert.equal(await held(), false, 'the secret is back after a reload');

    await item.getByRole('button', { name: en['console.clients.disable'].replace('{name}', 'Claims centre') }).click();
    const confirm = page.getByRole('dialog', { name: en['console.clients.disableTitle'] });
    await confirm.waitFor();
    await checkA11y(page);
    await confirm.getByRole('button', { name: en['console.confirm.yes'] }).click();
    await item.getByRole('heading', { level: 3 }).getByText(en['console.state.disabled']).waitFor();
    await checkA11y(page);
    await expectNoSidewaysScroll(page, 'the disabled client');
    assert.match(await server.cli('clients', 'list', '--brand', 'intact'), new RegExp(`^${clientID}\\s.*\\sdisabled$`, 'm'));
    assert.deepEqual(realErrors(errors), []);
  });
});
