// Registration in English at the default desktop width (registration.mjs),
// and where each brand's create-account button goes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { arrive, brands, pathOf, press, realErrors, serverForSuite, startBrowser, withOpenPage } from './harness.mjs';
import { catalogue } from './demo.mjs';
import { messages, registrationTests } from './registration.mjs';

/** Smart registration's first page (issue 15), where the create-account button of belair and intact goes. */
const smartTitle = /** @type {string} */ (catalogue('sections/smartRegistration.en.json')['smartRegistration.accountType.title']);

const browser = await startBrowser();

describe('the create-account button: smart registration where the brand has the flag (belair, intact), else registration identification', () => {
  const suite = serverForSuite(browser);

  for (const brand of brands) {
    test(brand, () =>
      withOpenPage(browser, suite.server.url(brand, '/?lang=en'), {}, async ({ page, errors }) => {
        const smart = brand === 'belair' || brand === 'intact';
        await press(page, page.getByRole('link', { name: messages.en['login.createAccount'] }));
        await arrive(page, smart ? smartTitle : messages.en['registration.identification.title']);
        assert.equal(pathOf(page), smart ? '/create-an-account/identification/account-type' : '/registration/identification');
        assert.deepEqual(realErrors(errors), []);
      }));
  }
});

describe('registration in English', () => registrationTests(browser, 'en'));
