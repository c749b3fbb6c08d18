// The console's staff in the browser tests: signing in as the console asks,
// the password, then a TOTP code (totp.mjs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { arrive, repoRoot } from './harness.mjs';

/** The console's English texts. @type {Record<string, string>} */
export const consoleEn = JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/console.en.json'), 'utf8'));

/**
 * Signs a staff member in from the console's sign-in page, the email and
 * password, then the next TOTP code; resolves on the search page.
 * @param {import('playwright-core').Page} page on /sign-in
 * @param {string} email
 * @param {() => Promise<string>} nextCode the member's codes (totp.mjs codes)
 * @param {{ password?: string; focus?: boolean }} [options] password: the demo staff's unless given; focus: false when the sign-in page is the first of the visit (arrive's)
 */
export async function signInStaff(page, email, nextCode, { password = 'Guichet-Staff-2026!', focus = true } = {}) {
  await arrive(page, consoleEn['console.signIn.title'], { focus });
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: consoleEn['console.signIn.submit'] }).click();
  await arrive(page, consoleEn['console.code.title']);
  await page.getByLabel(consoleEn['console.code.code'], { exact: true }).fill(await nextCode());
  await page.getByRole('button', { name: consoleEn['console.code.submit'] }).click();
  await arrive(page, consoleEn['console.search.title']);
}
