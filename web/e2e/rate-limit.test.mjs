// Browser test of issue 12 item 7: the server's real per-address limit on
// reset-code requests (internal/recovery DefaultLimits: 10 in 10 minutes)
// is a message on the form saying how long to wait, never the technical
// roadblock: a household or a mobile carrier shares one address. A server of
// its own, so no other test's requests count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkA11y, pathOf, press, realErrors, siteConfig, startSuite, withOpenPage } from './harness.mjs';

const { server, browser } = await startSuite();

test('the 11th forgot request from one address in 10 minutes says how many minutes to wait, on the form', () =>
  withOpenPage(browser, server.url('belair', '/forgot'), {}, async ({ page, errors }) => {
    // Ten requests as the SPA sends them, from this browser (the same address).
    const config = await siteConfig(page);
    const statuses = await page.evaluate(
      async ({ apiKey, province, language }) => {
        const answers = [];
        for (let i = 0; i < 10; i++) {
          const response = await fetch('/api/v1/accounts/password-reset', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-API-KEY': apiKey, province: province.toUpperCase(), language },
            body: JSON.stringify({ email: `someone${i}@belair.example` }),
          });
          answers.push(response.status);
        }
        return answers;
      },
      { apiKey: config.brand.apiKey, province: config.province, language: config.language },
    );
    assert.deepEqual(statuses, Array(10).fill(200), 'ten requests are within the limit');

    // The 11th, by the form.
    const email = page.getByLabel('Email address');
    await press(page, email);
    await page.keyboard.type('demo@belair.example');
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/accounts/password-reset'));
    await press(page, page.getByRole('button', { name: 'Send me a code' }));
    const response = await answer;
    assert.equal(response.status(), 429);
    const retryAfter = Number(await response.headerValue('Retry-After'));
    assert.ok(retryAfter >= 1 && retryAfter <= 1200, `Retry-After ${retryAfter}`);
    const minutes = Math.ceil(retryAfter / 60);

    const alert = page.getByRole('alert').filter({ hasText: 'Too many tries from this connection.' });
    await alert.waitFor();
    assert.equal(
      (await alert.textContent())?.trim(),
      `Too many tries from this connection. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
    );
    // No roadblock: the visitor is still on the form, which keeps the email.
    assert.equal(pathOf(page), '/forgot');
    assert.equal(await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).count(), 1);
    assert.equal(await page.getByRole('heading', { name: 'Something went wrong' }).count(), 0);
    assert.equal(await email.inputValue(), 'demo@belair.example');
    await checkA11y(page);
    assert.deepEqual(realErrors(errors), []);
  }));
