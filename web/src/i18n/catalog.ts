import en from './en.json';
import type chatEn from './sections/chat.en.json';
import type cobrowseEn from './sections/cobrowse.en.json';
import type consoleEn from './sections/console.en.json';
import type oidcEn from './sections/oidc.en.json';
import type securityEn from './sections/security.en.json';
import type registrationEn from './sections/registration.en.json';
import type smartRegistrationEn from './sections/smartRegistration.en.json';
import type { Language } from '@/lib/site/types';

// en.json is the source of truth: its keys are the valid message keys, with
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

export const english: Record<BaseKey, string> = en;

/** A key of the base catalogue (en.json). */
export function isMessageKey(key: string): key is BaseKey {
  return Object.hasOwn(english, key);
}

// French and the per-brand overrides are separate chunks, fetched only by the
// visitors who need them.
const baseCatalogs: Record<Language, () => Promise<Partial<Messages>>> = {
  en: () => Promise.resolve(english),
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
 * Messages for a brand and language: English, then the brand's English
 * overrides, then the language's catalogue and the brand's overrides in it.
 * A key missing anywhere falls back to English.
 */
export function loadMessages(brand: string, language: Language): Promise<Messages> {
  const id = `${brand}:${language}`;
  let promise = loading.get(id);
  if (!promise) {
    const layers = [brandCatalog(brand, 'en')];
    if (language !== 'en') layers.push(baseCatalogs[language](), brandCatalog(brand, language));
    promise = Promise.all(layers).then((parts) => {
      const messages: Messages = Object.assign({}, english, ...parts);
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
