// Registration in French on the narrowest phone (registration.mjs).
import { describe } from 'node:test';
import { startBrowser } from './harness.mjs';
import { registrationTests } from './registration.mjs';

const browser = await startBrowser();

describe('registration in French', () => registrationTests(browser, 'fr'));
