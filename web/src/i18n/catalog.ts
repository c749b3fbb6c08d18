import type en from './en.json';
import type chatEn from './sections/chat.en.json';
import type cobrowseEn from './sections/cobrowse.en.json';
import type consoleEn from './sections/console.en.json';
import type oidcEn from './sections/oidc.en.json';
import type securityEn from './sections/security.en.json';
import type registrationEn from './sections/registration.en.json';
import type smartRegistrationEn from './sections/smartRegistration.en.json';
import type { Language } from '@/lib/site/types';

// en.json is the source of truth: its keys are the valid message keys (a
// type-only import: the texts load like any language's, below), with
// those of the sections (sections/<name>.en.json): the texts of one lazy
// feature, fetched with it so the login route's JavaScript does not carry
// them (MessageSection in i18n.tsx provides them).
export type BaseKey = keyof typeof en;
export type SectionKey = keyof typeof registrationEn | keyof typeof smartRegistrationEn | keyof typeof consoleEn | keyof typeof chatEn | keyof typeof cobrowseEn | keyof typeof oidcEn | keyof typeof securityEn;
export type MessageKey = BaseKey | SectionKey;
/** The base catalogue, and the keys of the sections loaded where they are used. */
export type Messages = Record<BaseKey, string> & Partial<Record<SectionKey, string>>;
export type MessageParams = Record<string, string | number>;

/** A message to show: a key, or a key with the values it names (a server answer's wait, say). */
export type Message = MessageKey | { key: MessageKey; params: MessageParams };

// The keys of the base catalogue, known once one has loaded: every
// language's has the same (a test keeps fr.json's equal to en.json's).
let baseKeys: Readonly<Record<string, string>> | undefined;

/** Tells isMessageKey the base catalogue's keys; the staff console, which loads English itself, calls it. */
export function knowBaseKeys(messages: Readonly<Record<string, string>>): void {
  baseKeys = messages;
}

/** A key of the base catalogue (en.json); false before a catalogue has loaded (the first render waits for one). */
export function isMessageKey(key: string): key is BaseKey {
  return baseKeys !== undefined && Object.hasOwn(baseKeys, key);
}

// Each language's catalogue and the per-brand overrides are separate
// chunks: a page fetches its language's alone (and the server names it in
// index.html, internal/httpapi/preload.go), so a French page does not
// download the English texts.
const baseCatalogs: Record<Language, () => Promise<Record<BaseKey, string>>> = {
  // english.ts, not en.json: the console imports en.json statically, and a
  // module both imported and import()ed needs the bundler's runtime chunk.
  en: () => import('./english').then((m) => m.english),
  fr: () => import('./fr.json').then((m) => m.default),
};
const brandCatalogs = import.meta.glob<Partial<Messages>>('./brands/*.json', { import: 'default' });

function brandCatalog(brand: string, language: Language): Promise<Partial<Messages>> {
  const load = brandCatalogs[`./brands/${brand}.${language}.json`];
  return load ? load() : Promise.resolve({});
}

const loaded = new Map<string, Messages>();
const loading = new Map<string, Promise<Messages>>();

/**
 * Messages for a brand and language: the language's catalogue and the
 * brand's overrides in it. Every catalogue has every key (a test keeps
 * fr.json's equal to en.json's), so none falls back to another language.
 */
export function loadMessages(brand: string, language: Language): Promise<Messages> {
  const id = `${brand}:${language}`;
  let promise = loading.get(id);
  if (!promise) {
    promise = Promise.all([baseCatalogs[language](), brandCatalog(brand, language)]).then(([base, overrides]) => {
      knowBaseKeys(base);
      const messages: Messages = { ...base, ...overrides };
      loaded.set(id, messages);
      return messages;
    });
    promise.catch(() => loading.delete(id)); // a failed chunk load may be retried
    loading.set(id, promise);
  }
  return promise;
}

/** Messages already loaded by loadMessages, so the first render need not suspend. */
export function loadedMessages(brand: string, language: Language): Messages | undefined {
  return loaded.get(`${brand}:${language}`);
}

/** Replaces {name} placeholders; a placeholder without a value stays as written. */
export function interpolate(template: string, params?: MessageParams): string {
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (placeholder, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : placeholder,
  );
}
