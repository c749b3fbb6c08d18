// What the registration files' visitors type and read: the --dev demo
// people's details (docs/registration-demo.md) and the portal's texts.
import { readFileSync } from 'node:fs';
import { repoRoot } from './harness.mjs';

/**
 * A catalogue of web/src/i18n.
 * @param {string} path under web/src/i18n
 * @returns {Record<string, string>}
 */
export const catalogue = (path) => JSON.parse(readFileSync(`${repoRoot}web/src/i18n/${path}`, 'utf8'));

/**
 * What the visitor reads, by language: the catalogue, the registration
 * section and the sections named.
 * @param {string[]} sections more sections, such as 'smartRegistration'
 */
export function registrationMessages(...sections) {
  /** @param {'en' | 'fr'} language @returns {Record<string, string>} */
  const of = (language) =>
    Object.assign(catalogue(`${language}.json`), ...['registration', ...sections].map((section) => catalogue(`sections/${section}.${language}.json`)));
  return { en: of('en'), fr: of('fr') };
}

/** The demo people's date of birth and postal code. */
export const DOB = { day: '14', month: { en: 'March', fr: 'mars' }, year: '1985' };
export const POSTAL = 'M5V 2T6';
/** A well-formed Ontario licence (on has UBI; none is on file for the demo people). */
export const LICENCE = 'A12341234512345';
/** The PIN of the demo people's letters. */
export const PIN = 'AB12CD34';
/** The password a visitor chooses. */
export const NEW_PASSWORD = 'Fresh-Start-2026#';
