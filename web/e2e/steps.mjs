// Steps through the portal's flows that several browser tests take on the
// way to what they check.
import { arrive, codeOf, press, typeInto, waitForMail } from './harness.mjs';

/**
 * On /forgot with the email typed: asks for the code, types the one mailed
 * since `seen`, and arrives at the new password page.
 * @param {import('./harness.mjs').Server} server
 * @param {import('playwright-core').Page} page
 * @param {Record<string, string>} m the messages of the page's language
 * @param {string} email
 * @param {Set<string>} seen the mail already in the box
 */
export async function codeToNewPassword(server, page, m, email, seen) {
  await press(page, page.getByRole('button', { name: m['recovery.forgot.submit'] }));
  await arrive(page, m['recovery.verify.title']);
  const mail = await waitForMail(server, email, 'reset-code', seen);
  await typeInto(page, page.getByLabel(m['form.code'], { exact: true }), codeOf(mail));
  await press(page, page.getByRole('button', { name: m['recovery.verify.submit'] }));
  await arrive(page, m['recovery.reset.title']);
}

/**
 * On smart registration's password page: the password twice, the terms
 * accepted, then Create, arriving at the confirmation.
 * @param {import('playwright-core').Page} page
 * @param {Record<string, string>} m the messages of the page's language
 * @param {string} password
 */
export async function createSmartAccount(page, m, password) {
  await typeInto(page, page.getByLabel(m['smartRegistration.create.password'], { exact: true }), password);
  await typeInto(page, page.getByLabel(m['smartRegistration.create.confirmation']), password);
  await press(page, page.getByRole('checkbox'));
  await press(page, page.getByRole('button', { name: m['smartRegistration.create.submit'], exact: true }));
  await arrive(page, m['smartRegistration.confirmation.title']);
}
