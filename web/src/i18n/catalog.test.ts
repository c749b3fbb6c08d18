import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoPath } from '@/test/repo';
import { interpolate, isMessageKey, loadMessages, type MessageParams } from './catalog';
import { english } from './english';
import { loadSection } from './section';
import en from './en.json';
import fr from './fr.json';
import chatEn from './sections/chat.en.json';
import chatFr from './sections/chat.fr.json';
import cobrowseEn from './sections/cobrowse.en.json';
import cobrowseFr from './sections/cobrowse.fr.json';
import consoleEn from './sections/console.en.json';
import consoleFr from './sections/console.fr.json';
import oidcEn from './sections/oidc.en.json';
import oidcFr from './sections/oidc.fr.json';
import securityEn from './sections/security.en.json';
import securityFr from './sections/security.fr.json';
import registrationEn from './sections/registration.en.json';
import registrationFr from './sections/registration.fr.json';
import smartRegistrationEn from './sections/smartRegistration.en.json';
import smartRegistrationFr from './sections/smartRegistration.fr.json';

const i18nDir = repoPath('web/src/i18n');
const srcDir = repoPath('web/src');
const brandIds = ['belair', 'bna', 'intact', 'scotia', 'servus'];

const brandFiles = readdirSync(join(i18nDir, 'brands')).map((file) => ({
  file,
  messages: JSON.parse(readFileSync(join(i18nDir, 'brands', file), 'utf8')) as Record<string, string>,
}));

const placeholders = (text: string) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

/** The message sections (sections/<name>.<lang>.json): a lazy feature's texts. */
const sections = [
  { name: 'registration', en: registrationEn as Record<string, string>, fr: registrationFr as Record<string, string> },
  { name: 'smartRegistration', en: smartRegistrationEn as Record<string, string>, fr: smartRegistrationFr as Record<string, string> },
  // The live-chat widget's texts (src/features/chat), fetched with its chunk when the bubble is pressed.
  { name: 'chat', en: chatEn as Record<string, string>, fr: chatFr as Record<string, string> },
  // Co-browse's dialog and banner (src/features/cobrowse), fetched with its chunk when the visitor asks to share.
  { name: 'cobrowse', en: cobrowseEn as Record<string, string>, fr: cobrowseFr as Record<string, string> },
  // The OpenID provider's consent page and My account's connected applications (src/features/account).
  { name: 'oidc', en: oidcEn as Record<string, string>, fr: oidcFr as Record<string, string> },
  // My account's security settings (src/features/account): the password change, for now.
  { name: 'security', en: securityEn as Record<string, string>, fr: securityFr as Record<string, string> },
  // The staff console's texts (src/console): loaded by its own entry, never by the portal's.
  { name: 'console', en: consoleEn as Record<string, string>, fr: consoleFr as Record<string, string> },
];
const sectionFiles = readdirSync(join(i18nDir, 'sections'));
const inEnglish = (key: string) => Object.hasOwn(en, key);
const isSectionKey = (key: string) => sections.some((section) => Object.hasOwn(section.en, key));

describe('catalogues', () => {
  it('French has exactly the keys of English', () => {
    expect(Object.keys(fr).sort()).toEqual(Object.keys(en).sort());
  });

  it('every section file is listed here, in both languages', () => {
    expect(sectionFiles.sort()).toEqual(sections.flatMap(({ name }) => [`${name}.en.json`, `${name}.fr.json`]).sort());
  });

  it.each(sections)('section $name: French has exactly the keys of English, under its own prefix, none of the base catalogue', (section) => {
    expect(Object.keys(section.fr).sort()).toEqual(Object.keys(section.en).sort());
    for (const key of Object.keys(section.en)) {
      expect(key.startsWith(`${section.name}.`), key).toBe(true);
      expect(inEnglish(key), `${key} is also in en.json`).toBe(false);
    }
    for (const [key, value] of [...Object.entries(section.en), ...Object.entries(section.fr)]) {
      expect(typeof value === 'string' && value.trim() !== '', key).toBe(true);
    }
    for (const [key, value] of Object.entries(section.fr)) expect(placeholders(value), key).toEqual(placeholders(section.en[key] ?? ''));
  });

  it('every value is a non-empty string', () => {
    for (const [key, value] of [...Object.entries(en), ...Object.entries(fr)]) {
      expect(typeof value === 'string' && value.trim() !== '', key).toBe(true);
    }
  });

  it('French uses the placeholders of English', () => {
    for (const [key, value] of Object.entries(fr)) {
      expect(placeholders(value), key).toEqual(placeholders(english[key as keyof typeof en]));
    }
  });

  it.each(brandFiles)('brand override $file: known brand and language, existing keys, known placeholders', ({ file, messages }) => {
    const match = /^(\w+)\.(en|fr)\.json$/.exec(file);
    expect(match, `${file} is named <brand>.<en|fr>.json`).not.toBeNull();
    expect(brandIds).toContain(match?.[1]);
    for (const [key, value] of Object.entries(messages)) {
      expect(inEnglish(key), `${file}: ${key} is not in en.json`).toBe(true);
      if (inEnglish(key)) expect(placeholders(english[key as keyof typeof en]), `${file}: ${key}`).toEqual(expect.arrayContaining(placeholders(value)));
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('keys used in the code', () => {
  const uses = sourceFiles(srcDir).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/\bt\(\s*(['"`])([^'"`]+)\1/g)].map((m) => ({
      file: relative(srcDir, file),
      key: m[2] ?? '',
    })),
  );

  it('finds the t() calls', () => {
    expect(uses.length).toBeGreaterThan(10);
  });

  it.each(uses)('$file uses $key, which en.json (or its section) has', ({ key }) => {
    expect(inEnglish(key) || isSectionKey(key)).toBe(true);
  });
});

// A number (or a {placeholder} that stands for one) and its unit with an
// ordinary space between them: French keeps them on one line with a
// non-breaking space (« 6 chiffres », « 10 minutes », « 24 heures »).
const numberThenUnit =
  /(\d|\})[ \t\n](chiffres?|caractères?|lettres|secondes?|minutes?|heures?|jours?|semaines?|mois|ans?|h|min|\$|%)(?![\p{L}])/u;

// Canadian French typography: a non-breaking space (U+00A0) before the colon
// and » and after «; never a plain space before : ; ! ? » or after «.
describe('French typography', () => {
  const values = [
    ...Object.entries(fr).map(([key, value]) => ({ where: `fr.json ${key}`, value })),
    ...sections.flatMap(({ name, fr: messages }) => Object.entries(messages).map(([key, value]) => ({ where: `${name}.fr.json ${key}`, value }))),
    ...brandFiles
      .filter(({ file }) => file.endsWith('.fr.json'))
      .flatMap(({ file, messages }) => Object.entries(messages).map(([key, value]) => ({ where: `${file} ${key}`, value }))),
  ];

  it.each(values)('$where', ({ value }) => {
    expect(value).not.toMatch(/ [:;!?»]/);
    expect(value).not.toMatch(/« /);
    // A colon that ends a label (not one inside 08:00 or a URL) takes a non-breaking space.
    for (const m of value.matchAll(/(.)?:(?=\s|$)/g)) expect(m[1]).toBe('\u00a0');
    for (const m of value.matchAll(/(.)?»/g)) expect(m[1]).toBe('\u00a0');
    for (const m of value.matchAll(/«(.)?/g)) expect(m[1]).toBe('\u00a0');
    expect(value, 'typographic apostrophe').not.toMatch(/'/);
    // ; ! ? take a non-breaking space too (« profil\u00a0; nous »).
    for (const m of value.matchAll(/(.)?[;!?]/g)) expect(m[1], `before ${m[0]}`).toBe('\u00a0');
    expect(value, 'a number and its unit are kept together').not.toMatch(numberThenUnit);
  });

  it('the checks catch bad typography', () => {
    const bad = ['Téléphone : 1', 'Téléphone: 1', '« citation »', 'Vraiment ?', 'profil; nous'];
    const flagged = bad.filter(
      (v) =>
        / [:;!?»]|« /.test(v) ||
        [...v.matchAll(/(.)?:(?=\s|$)/g)].some((m) => m[1] !== '\u00a0') ||
        [...v.matchAll(/(.)?[;!?]/g)].some((m) => m[1] !== '\u00a0'),
    );
    expect(flagged).toEqual(bad);
  });

  it('the unit check catches a breakable space between a number and its unit', () => {
    const bad = ['un code à 6 chiffres', 'dans 10 minutes', 'pendant 24 heures', 'dans {minutes} minutes', 'de 2 à 254 caractères'];
    expect(bad.filter((v) => numberThenUnit.test(v))).toEqual(bad);
    expect(numberThenUnit.test('un code à 6\u00a0chiffres valide 10\u00a0minutes')).toBe(false);
  });
});

describe('interpolate', () => {
  const cases: { template: string; params: MessageParams | undefined; expected: string }[] = [
    { template: 'Hello', params: undefined, expected: 'Hello' },
    { template: '© {year} {brand}.', params: { year: 2025, brand: 'belairdirect' }, expected: '© 2025 belairdirect.' },
    { template: '{a}{a}', params: { a: 'x' }, expected: 'xx' },
    { template: '{missing} stays', params: {}, expected: '{missing} stays' },
    { template: '{toString}', params: {}, expected: '{toString}' },
  ];
  it.each(cases)('$template', ({ template, params, expected }) => {
    expect(interpolate(template, params)).toBe(expected);
  });
});

describe('loadSection', () => {
  it('the language\'s file alone; the same promise each time', async () => {
    expect(await loadSection('registration', 'fr')).toEqual(registrationFr);
    expect(await loadSection('registration', 'en')).toEqual(registrationEn);
    expect(loadSection('registration', 'fr')).toBe(loadSection('registration', 'fr'));
  });
});

describe('loadMessages', () => {
  it('English for a brand without overrides is the base catalogue', async () => {
    expect(await loadMessages('servus', 'en')).toEqual(english);
  });

  it('French is the French catalogue, with the brand\'s French overrides over it', async () => {
    const messages = await loadMessages('belair', 'fr');
    const overrides = brandFiles.find((b) => b.file === 'belair.fr.json')?.messages;
    expect(overrides?.['footer.rightsReserved']).toBeDefined();
    expect(messages).toEqual({ ...fr, ...overrides });
  });

  it('brand English overrides apply in English', async () => {
    const override = brandFiles.find((b) => b.file === 'intact.en.json')?.messages['footer.rightsReserved'];
    expect((await loadMessages('intact', 'en'))['footer.rightsReserved']).toBe(override);
  });

  it('returns the same promise for the same brand and language', () => {
    expect(loadMessages('bna', 'fr')).toBe(loadMessages('bna', 'fr'));
  });

  it('isMessageKey knows the base keys once a catalogue has loaded, in either language', async () => {
    await loadMessages('bna', 'fr');
    expect(isMessageKey('notFound.title')).toBe(true);
    expect(isMessageKey('registration.next')).toBe(false);
    expect(isMessageKey('toString')).toBe(false);
  });
});
