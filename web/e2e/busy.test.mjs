// Browser test of load shedding (issue 11): a password check the server
// refuses because its hashers are too busy (429 BUSY) is a message on the
// form, announced, not a roadblock; the visitor can submit again. The
// server is the real binary, started with a hash wait budget no wait fits
// in (GUICHET_HASH_WAIT_BUDGET=1ns), so its admission control refuses every
// password check as it would under a flood.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkA11y, pathOf, realErrors, startSuite, withOpenPage } from './harness.mjs';

const BUSY = 'The service is busy. Try again in a few seconds.';

const { server, browser } = await startSuite({ env: { GUICHET_HASH_WAIT_BUDGET: '1ns' } });

/**
 * Submits the login form and returns the password check's answer.
 * @param {import('playwright-core').Page} page
 * @param {string} email
 * @param {string} password
 */
async function signIn(page, email, password) {
  const answered = page.waitForResponse((r) => /\/api\/v1\/accounts\/[^/]+\/(authentication|temporary)$/.test(r.url()));
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  return answered;
}

for (const { name, email, password } of [
  { name: 'a password', email: 'demo@belair.example', password: 'Guichet-Demo-2026!' },
  { name: 'a temporary password', email: 'temp@belair.example', password: 'Temp-Pass-2026' },
]) {
  test(`signing in with ${name} while the server sheds load: the busy message on the form, again on each submit`, () =>
    withOpenPage(browser, server.url('belair'), {}, async ({ page, errors }) => {
      for (let attempt = 1; attempt <= 2; attempt++) {
        const answer = await signIn(page, email, password);
        assert.equal(answer.status(), 429);
        assert.match(answer.headers()['retry-after'] ?? '', /^[1-9][0-9]*$/);
        assert.equal((await answer.json()).errorCode, 'BUSY');
        await page.getByRole('alert').filter({ hasText: BUSY }).waitFor();
        assert.equal(pathOf(page), '/');
        assert.equal(await page.getByRole('button', { name: 'Sign in', exact: true }).isEnabled(), true);
      }
      const flow = await page.evaluate(() => JSON.parse(sessionStorage.getItem('guichet.flow') ?? '{}'));
      assert.notEqual(flow.roadblocked, true);
      await checkA11y(page);
      assert.deepEqual(realErrors(errors), []);
    }));
}
